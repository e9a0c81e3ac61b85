package main

import "golang.org/x/sys/unix"

// totalMemory returns the machine's RAM in bytes (sysinfo(2)).
func totalMemory() (uint64, bool) {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err == nil && si.Totalram > 0 {
		return uint64(si.Totalram) * uint64(si.Unit), true
	}
	return 0, false
}

// isTerminalFd reports whether fd is a terminal (the TCGETS ioctl works).
func isTerminalFd(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
