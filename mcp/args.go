package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/canopy-dev/canopy/action"
)

// def makes a tool whose arguments are read into T and converted by conv.
// The input schema is inferred from T, with enums added for the string
// arguments named in enums.
func def[T any](name, desc string, h hints, enums map[string][]string, conv func(T) action.Action) toolDef {
	td := toolDef{name: name, desc: desc, hints: h, enums: enums}
	td.schema = func() (any, error) { return schemaFor[T](enums) }
	td.decode = func(raw []byte) (action.Action, error) {
		var args T
		if err := decodeArgs(name, raw, &args, enums); err != nil {
			return action.Action{}, err
		}
		return conv(args), nil
	}
	return td
}

// schemaFor infers T's JSON schema and adds enums.
func schemaFor[T any](enums map[string][]string) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	for prop, vals := range enums {
		p := s.Properties[prop]
		if p == nil {
			return nil, fmt.Errorf("enum for unknown argument %q", prop)
		}
		for _, v := range vals {
			p.Enum = append(p.Enum, v)
		}
	}
	tightenTypes(s)
	return s, nil
}

// tightenTypes writes optional pointer arguments ("type": ["null",
// "boolean"]) as their plain type: absent already means "not given", and
// the shorter form costs fewer tokens.
func tightenTypes(s *jsonschema.Schema) {
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
		tightenTypes(p)
	}
	if s.Items != nil {
		tightenTypes(s.Items)
	}
}

// decodeArgs reads a tool's arguments strictly: unknown arguments, wrong
// types, missing required arguments and values outside an enum are errors
// worded for the agent.
func decodeArgs(tool string, raw []byte, into any, enums map[string][]string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("%s: arguments must be a JSON object", tool)
	}
	known := jsonFields(into)
	for k := range fields {
		if !slices.ContainsFunc(known, func(f field) bool { return f.name == k }) {
			return fmt.Errorf("%s: unknown argument %q (%s takes %s)", tool, k, tool, fieldList(known))
		}
	}
	for _, f := range known {
		if _, ok := fields[f.name]; f.required && !ok {
			return fmt.Errorf("%s: missing argument %q", tool, f.name)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(into); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: argument %q must be %s, not %s", tool, te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return fmt.Errorf("%s: bad arguments: %w", tool, err)
	}
	for prop, vals := range enums {
		v, ok := fields[prop]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" && !slices.Contains(vals, s) {
			return fmt.Errorf("%s: %s %q: use %s", tool, prop, s, strings.Join(vals, ", "))
		}
	}
	return nil
}

// jsonKind names a Go kind the way JSON Schema does.
func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "bool":
		return "true or false"
	case k == "slice":
		return "an array"
	case k == "map", k == "struct":
		return "an object"
	}
	return "a " + k
}

// batchDef is the batch tool: steps are other tools' names and arguments,
// decoded exactly as if each were called alone.
func batchDef(desktop bool, tier action.Tier) toolDef {
	td := toolDef{
		name: "batch",
		desc: "Run tool calls in order; stop at the first failure; one diff for all.",
	}
	td.schema = func() (any, error) {
		s, err := schemaFor[batchArgs](nil)
		if err != nil {
			return nil, err
		}
		var names []any
		for _, t := range allTools(desktop) {
			if offered(t.name, tier) {
				names = append(names, t.name)
			}
		}
		s.Properties["steps"].Items.Properties["tool"].Enum = names
		return s, nil
	}
	td.decode = func(raw []byte) (action.Action, error) {
		var args batchArgs
		if err := decodeArgs("batch", raw, &args, nil); err != nil {
			return action.Action{}, err
		}
		if len(args.Steps) == 0 {
			return action.Action{}, errors.New("batch: steps is empty")
		}
		byName := map[string]toolDef{}
		for _, t := range allTools(desktop) {
			byName[t.name] = t
		}
		a := action.Action{Kind: action.Batch}
		for i, st := range args.Steps {
			t, ok := byName[st.Tool]
			if !ok || st.Tool == "batch" {
				return action.Action{}, fmt.Errorf("batch step %d: unknown tool %q", i+1, st.Tool)
			}
			sraw, _ := json.Marshal(st.Args)
			sa, err := t.decode(sraw)
			if err != nil {
				return action.Action{}, fmt.Errorf("batch step %d: %w", i+1, err)
			}
			a.Steps = append(a.Steps, sa)
		}
		return a, nil
	}
	return td
}

// field is one argument of a tool, from its struct tag.
type field struct {
	name     string
	required bool
}

// jsonFields lists the arguments of the struct v points to.
func jsonFields(v any) []field {
	t := reflect.TypeOf(v).Elem()
	var fs []field
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		fs = append(fs, field{name: name, required: !strings.Contains(opts, "omitempty")})
	}
	return fs
}

func fieldList(fs []field) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ")
}
