package storage

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// walSyncFlag is how DB.Sync opens the WAL to sync it: FlushFileBuffers
// needs a handle with write access (it fails with ERROR_ACCESS_DENIED on a
// read-only one).
const walSyncFlag = os.O_RDWR

// syncDir does nothing on Windows: a directory cannot be opened for
// FlushFileBuffers through os.Open, and NTFS journals its metadata (names
// included) itself; SQLite's own Windows VFS does not sync directories
// either (its xSync of a directory is a no-op).
func syncDir(dir string) error {
	_, err := os.Stat(dir)
	return err
}

// walStat is what WALCapture needs of the WAL: Nlink (0 once SQLite
// deleted it, which on Windows leaves it "delete pending" until the last
// handle closes) and Size.
type walStat struct {
	Nlink uint32
	Size  int64
}

// fileStandardInfo is FILE_STANDARD_INFO (winbase.h), the answer of
// GetFileInformationByHandleEx(FileStandardInfo); golang.org/x/sys/windows
// declares the class but not the struct.
type fileStandardInfo struct {
	AllocationSize int64
	EndOfFile      int64
	NumberOfLinks  uint32
	DeletePending  bool
	Directory      bool
}

// openWAL opens the -wal file to read it, sharing delete so SQLite can
// still delete the WAL while this handle is open (as on Unix; os.Open does
// not pass FILE_SHARE_DELETE).
func openWAL(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil { // ERROR_FILE_NOT_FOUND is os.ErrNotExist
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

func fstat(fd int, st *walStat) error {
	var info fileStandardInfo
	if err := windows.GetFileInformationByHandleEx(windows.Handle(fd), windows.FileStandardInfo,
		(*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return err
	}
	st.Nlink, st.Size = info.NumberOfLinks, info.EndOfFile
	if info.DeletePending {
		st.Nlink = 0
	}
	return nil
}
