package shell

import (
	"fmt"
	"strconv"
	"strings"
)

// count reads -n N (default 10).
func (c *call) count() (int, error) {
	fl, args, err := c.flags("-n=")
	if err != nil {
		return 0, err
	}
	if len(args) > 0 {
		return 0, fmt.Errorf("%s reads only what is piped into it (usage: %s)", c.name, builtins[c.name].usage)
	}
	n := 10
	if s, ok := fl["-n"]; ok {
		if n, err = strconv.Atoi(strings.TrimPrefix(s, "+")); err != nil || n < 0 {
			return 0, fmt.Errorf("-n takes a number of lines, not %q", s)
		}
	}
	return n, nil
}

func (c *call) head() error {
	return c.pick(func(lines []string, n int) []string { return lines[:min(n, len(lines))] })
}

func (c *call) tail() error {
	return c.pick(func(lines []string, n int) []string { return lines[max(0, len(lines)-n):] })
}

// pick prints the lines piped in that part chooses, given -n.
func (c *call) pick(part func(lines []string, n int) []string) error {
	n, err := c.count()
	if err != nil {
		return err
	}
	lines, err := c.input()
	if err != nil {
		return err
	}
	c.println(part(lines, n)...)
	return nil
}

func (c *call) wc() error {
	fl, args, err := c.flags("-l", "-w", "-c")
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return fmt.Errorf("wc counts only what is piped into it: ls | wc -l")
	}
	if c.in == nil {
		return fmt.Errorf("wc counts the lines piped into it: ls | wc -l")
	}
	text := *c.in
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	counts := map[string]int{"-l": lines, "-w": len(strings.Fields(text)), "-c": len(text)}
	var out []string
	for _, f := range []string{"-l", "-w", "-c"} {
		if _, ok := fl[f]; ok || len(fl) == 0 {
			out = append(out, strconv.Itoa(counts[f]))
		}
	}
	c.println(strings.Join(out, " "))
	return nil
}
