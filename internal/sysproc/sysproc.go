// Package sysproc starts and stops the helper processes canopy runs (the
// browser, desktop apps, Xvfb and a bus) as groups, so that stopping one
// stops what it started. It exists so that the packages that do so build
// on every system; process groups and sessions are Unix's, and on Windows
// a process can only be killed outright.
package sysproc
