package main

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// errAddrInUse is the error of listening on a port in use (Winsock's, not
// syscall.EADDRINUSE, which Go invents on Windows and no call returns).
const errAddrInUse = windows.WSAEADDRINUSE

// memoryStatusEx is MEMORYSTATUSEX (sysinfoapi.h); golang.org/x/sys/windows
// declares neither it nor GlobalMemoryStatusEx.
type memoryStatusEx struct {
	Length               uint32
	MemoryLoad           uint32
	TotalPhys            uint64
	AvailPhys            uint64
	TotalPageFile        uint64
	AvailPageFile        uint64
	TotalVirtual         uint64
	AvailVirtual         uint64
	AvailExtendedVirtual uint64
}

var procGlobalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// totalMemory returns the machine's RAM in bytes (GlobalMemoryStatusEx).
func totalMemory() (uint64, bool) {
	ms := memoryStatusEx{Length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if r, _, _ := procGlobalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&ms))); r == 0 {
		return 0, false
	}
	return ms.TotalPhys, ms.TotalPhys > 0
}

// openFileLimit reports no limit: Windows has no RLIMIT_NOFILE (a process
// may hold about 16 million handles), so the default of
// defaultMaxOpenDatabases stands.
func openFileLimit() (uint64, bool) { return 0, false }

// isTerminalFd reports whether fd is a console that shows the dev log's
// ANSI colours: it turns on the console's virtual terminal processing
// (Windows 10 and later), and says no where that fails.
func isTerminalFd(fd uintptr) bool {
	var mode uint32
	h := windows.Handle(fd)
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
