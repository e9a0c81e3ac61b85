package clone

import (
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja"
)

// HostCodec writes and reads one kind of host object (a type the runtime
// provides, like Headers) as workerd's serializer does: V8's host-object
// tag, then Tag, then what Write writes.
type HostCodec struct {
	Tag   uint32
	Write func(w *HostWriter, o *goja.Object) error
	Read  func(r *HostReader) (goja.Value, error)
}

// RegisterHost makes objects branded brand (the host brand Install was
// given) serializable with c, and c.Tag readable. Call it on the runtime's
// goroutine, after Install.
func RegisterHost(rt *goja.Runtime, brand string, c HostCodec) error {
	ci := intrinsicsKey.Get(rt)
	if ci == nil {
		return fmt.Errorf("clone: RegisterHost before Install")
	}
	if ci.hosts == nil {
		ci.hosts, ci.hostTags = map[string]*HostCodec{}, map[uint32]*HostCodec{}
	}
	ci.hosts[brand], ci.hostTags[c.Tag] = &c, &c
	return nil
}

// HostWriter is what a HostCodec writes with.
type HostWriter struct{ w *writer }

// Uint32 writes x as workerd's writeRawUint32 does (a varint).
func (h *HostWriter) Uint32(x uint32) { h.w.varint(uint64(x)) }

// String writes s as workerd's writeLengthDelimited does: its UTF-8
// length, then its bytes.
func (h *HostWriter) String(s string) {
	h.w.varint(uint64(len(s)))
	h.w.buf = append(h.w.buf, s...)
}

// Bytes writes b as workerd's writeLengthDelimited does.
func (h *HostWriter) Bytes(b []byte) {
	h.w.varint(uint64(len(b)))
	h.w.buf = append(h.w.buf, b...)
}

// Value writes a nested value.
func (h *HostWriter) Value(v goja.Value) { h.w.value(v) }

// RPC reports whether the value goes in an RPC message (SerializeRPC).
func (h *HostWriter) RPC() bool { return h.w.rpc }

// Ref records a process-local reference the codec wrote (SerializeRPC's
// refs).
func (h *HostWriter) Ref(id uint64) { h.w.refs = append(h.w.refs, id) }

// HostReader is what a HostCodec reads with; its methods fail the whole
// Deserialize on corrupt input.
type HostReader struct{ r *reader }

// RPC reports whether the bytes are an RPC message (DeserializeRPC).
func (h *HostReader) RPC() bool { return h.r.rpc }

// Runtime is the runtime values are read into.
func (h *HostReader) Runtime() *goja.Runtime { return h.r.rt }

// Uint32 reads a varint written by HostWriter.Uint32.
func (h *HostReader) Uint32() uint32 { return h.r.uint32() }

// String reads a string written by HostWriter.String.
func (h *HostReader) String() string {
	b := h.r.bytes(h.r.varint())
	return string(b)
}

// Bytes reads bytes written by HostWriter.Bytes (a copy).
func (h *HostReader) Bytes() []byte {
	return append([]byte(nil), h.r.bytes(h.r.varint())...)
}

// Value reads a nested value.
func (h *HostReader) Value() goja.Value { return h.r.value() }

// Fail ends Deserialize with a corrupt-data error.
func (h *HostReader) Fail(format string, args ...any) { h.r.fail(format, args...) }
