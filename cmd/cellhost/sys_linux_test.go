package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestTotalMemory_MatchesProcMeminfo: totalMemory (sysinfo(2)) gives the
// RAM /proc/meminfo's MemTotal reports (both are the kernel's totalram).
func TestTotalMemory_MatchesProcMeminfo(t *testing.T) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skipf("no /proc/meminfo: %v", err)
	}
	var kb uint64
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err = strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("MemTotal line %q: %v", line, err)
			}
		}
	}
	if kb == 0 {
		t.Fatal("no MemTotal in /proc/meminfo")
	}
	got, ok := totalMemory()
	if !ok || got != kb*1024 {
		t.Errorf("totalMemory() = %d, %v; want %d (MemTotal %d kB)", got, ok, kb*1024, kb)
	}
}
