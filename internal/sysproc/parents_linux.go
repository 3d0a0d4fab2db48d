package sysproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Parents maps each running process to its parent, from /proc/PID/stat,
// for tools that count or stop the processes a program started (the
// browser's).
func Parents() map[int]int {
	parent := map[int]int{}
	matches, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(data)
		end := strings.LastIndexByte(s, ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 {
			continue
		}
		p, _ := strconv.Atoi(strings.Fields(s)[0])
		pp, _ := strconv.Atoi(fields[1])
		parent[p] = pp
	}
	return parent
}
