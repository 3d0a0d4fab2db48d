package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/canopy-dev/canopy/action"
)

// schemaOf is the input schema of a tool with args: an object of exactly
// those properties, in the table's order.
func schemaOf(args []action.Arg) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}, // false
	}
	for _, g := range args {
		p := &jsonschema.Schema{Description: g.Doc}
		switch g.Type {
		case action.String:
			p.Type = "string"
		case action.Int:
			p.Type = "integer"
		case action.Bool:
			p.Type = "boolean"
		case action.Strings:
			p.Type, p.Items = "array", &jsonschema.Schema{Type: "string"}
		}
		for _, w := range g.Enum {
			p.Enum = append(p.Enum, w)
		}
		s.Properties[g.Name] = p
		s.PropertyOrder = append(s.PropertyOrder, g.Name)
		if g.Required {
			s.Required = append(s.Required, g.Name)
		}
	}
	return s
}

// decodeArgs reads a tool's arguments strictly into a: unknown arguments,
// wrong types, missing required arguments and values outside an enum are
// errors worded for the agent. A null argument counts as absent.
func decodeArgs(tool string, raw []byte, args []action.Arg, a *action.Action) error {
	fields, err := objectOf(tool, raw)
	if err != nil {
		return err
	}
	for k := range fields {
		if !slices.ContainsFunc(args, func(g action.Arg) bool { return g.Name == k }) {
			return fmt.Errorf("%s: unknown argument %q (%s takes %s)", tool, k, tool, argList(args))
		}
	}
	for _, g := range args {
		v, ok := fields[g.Name]
		if !ok {
			if g.Required {
				return fmt.Errorf("%s: missing argument %q", tool, g.Name)
			}
			continue
		}
		val, err := decodeValue(g, v)
		if err != nil {
			return fmt.Errorf("%s: argument %q must be %s, not %s", tool, g.Name, typeName(g.Type), jsonKindOf(v))
		}
		if s, ok := val.(string); ok && len(g.Enum) > 0 && s != "" && !slices.Contains(g.Enum, s) {
			return fmt.Errorf("%s: %s %q: use %s", tool, g.Name, s, strings.Join(g.Enum, ", "))
		}
		g.Set(a, val)
	}
	return nil
}

// objectOf reads raw arguments as a JSON object; none is an empty one.
func objectOf(tool string, raw []byte) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("%s: arguments must be a JSON object", tool)
	}
	for k, v := range fields {
		if string(bytes.TrimSpace(v)) == "null" {
			delete(fields, k)
		}
	}
	return fields, nil
}

// decodeValue reads one argument as its Go type.
func decodeValue(g action.Arg, v json.RawMessage) (any, error) {
	switch g.Type {
	case action.String:
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	case action.Int:
		var n int
		err := json.Unmarshal(v, &n)
		return n, err
	case action.Bool:
		var b bool
		err := json.Unmarshal(v, &b)
		return b, err
	case action.Strings:
		var l []string
		err := json.Unmarshal(v, &l)
		return l, err
	}
	return v, nil
}

// typeName names an argument type the way JSON Schema does.
func typeName(t action.ArgType) string {
	switch t {
	case action.Int:
		return "an integer"
	case action.Bool:
		return "true or false"
	case action.Strings:
		return "an array of strings"
	case action.Object:
		return "an object"
	}
	return "a string"
}

// jsonKindOf names the JSON type of a value.
func jsonKindOf(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func argList(args []action.Arg) string {
	var names []string
	for _, g := range args {
		names = append(names, g.Name)
	}
	return strings.Join(names, ", ")
}

// batchStep is one step of the batch tool: another tool's name and
// arguments.
type batchStep struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"`
}

// batchDef is the batch tool: steps are other tools' names and arguments,
// decoded exactly as if each were called alone.
func batchDef(desktop bool, tier action.Tier) toolDef {
	spec, _ := action.SpecOf(action.Batch)
	td := toolDef{name: "batch", spec: spec}
	td.schema = func() (*jsonschema.Schema, error) {
		var names []any
		for _, t := range allTools(desktop) {
			if offered(t.name, tier) {
				names = append(names, t.name)
			}
		}
		step := &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"tool": {Type: "string", Enum: names},
				"args": {Type: "object", AdditionalProperties: &jsonschema.Schema{}},
			},
			PropertyOrder:        []string{"tool", "args"},
			Required:             []string{"tool"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		}
		return &jsonschema.Schema{
			Type:                 "object",
			Properties:           map[string]*jsonschema.Schema{"steps": {Type: "array", Items: step}},
			Required:             []string{"steps"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		}, nil
	}
	td.decode = func(raw []byte) (action.Action, error) {
		fields, err := objectOf("batch", raw)
		if err != nil {
			return action.Action{}, err
		}
		var steps []batchStep
		for k := range fields {
			if k != "steps" {
				return action.Action{}, fmt.Errorf("batch: unknown argument %q (batch takes steps)", k)
			}
		}
		if v, ok := fields["steps"]; !ok {
			return action.Action{}, errors.New(`batch: missing argument "steps"`)
		} else if err := json.Unmarshal(v, &steps); err != nil {
			return action.Action{}, fmt.Errorf(`batch: argument "steps" must be an array of {"tool": …, "args": {…}}`)
		}
		if len(steps) == 0 {
			return action.Action{}, errors.New("batch: steps is empty")
		}
		byName := map[string]toolDef{}
		for _, t := range allTools(desktop) {
			byName[t.name] = t
		}
		a := action.Action{Kind: action.Batch}
		for i, st := range steps {
			t, ok := byName[st.Tool]
			if !ok {
				return action.Action{}, fmt.Errorf("batch step %d: unknown tool %q", i+1, st.Tool)
			}
			sa, err := t.decode(st.Args)
			if err != nil {
				return action.Action{}, fmt.Errorf("batch step %d: %w", i+1, err)
			}
			a.Steps = append(a.Steps, sa)
		}
		return a, nil
	}
	return td
}
