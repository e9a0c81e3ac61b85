package node

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"hash/crc32"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/buffer"
	"github.com/klauspost/compress/zstd"
)

// zlibConstants is Node.js's zlib.constants (node 20's, which workerd's
// node:zlib has too, and the ZSTD_ ones of Node 23.8 and workerd: zstd.h's
// values, and the modes ZSTD_ENCODE/ZSTD_DECODE after BROTLI_ENCODE).
const zlibConstants = `{"Z_NO_FLUSH":0,"Z_PARTIAL_FLUSH":1,"Z_SYNC_FLUSH":2,"Z_FULL_FLUSH":3,"Z_FINISH":4,"Z_BLOCK":5,"Z_OK":0,"Z_STREAM_END":1,"Z_NEED_DICT":2,"Z_ERRNO":-1,"Z_STREAM_ERROR":-2,"Z_DATA_ERROR":-3,"Z_MEM_ERROR":-4,"Z_BUF_ERROR":-5,"Z_VERSION_ERROR":-6,"Z_NO_COMPRESSION":0,"Z_BEST_SPEED":1,"Z_BEST_COMPRESSION":9,"Z_DEFAULT_COMPRESSION":-1,"Z_FILTERED":1,"Z_HUFFMAN_ONLY":2,"Z_RLE":3,"Z_FIXED":4,"Z_DEFAULT_STRATEGY":0,"ZLIB_VERNUM":4880,"DEFLATE":1,"INFLATE":2,"GZIP":3,"GUNZIP":4,"DEFLATERAW":5,"INFLATERAW":6,"UNZIP":7,"BROTLI_DECODE":8,"BROTLI_ENCODE":9,"Z_MIN_WINDOWBITS":8,"Z_MAX_WINDOWBITS":15,"Z_DEFAULT_WINDOWBITS":15,"Z_MIN_CHUNK":64,"Z_MAX_CHUNK":null,"Z_DEFAULT_CHUNK":16384,"Z_MIN_MEMLEVEL":1,"Z_MAX_MEMLEVEL":9,"Z_DEFAULT_MEMLEVEL":8,"Z_MIN_LEVEL":-1,"Z_MAX_LEVEL":9,"Z_DEFAULT_LEVEL":-1,"BROTLI_OPERATION_PROCESS":0,"BROTLI_OPERATION_FLUSH":1,"BROTLI_OPERATION_FINISH":2,"BROTLI_OPERATION_EMIT_METADATA":3,"BROTLI_PARAM_MODE":0,"BROTLI_MODE_GENERIC":0,"BROTLI_MODE_TEXT":1,"BROTLI_MODE_FONT":2,"BROTLI_DEFAULT_MODE":0,"BROTLI_PARAM_QUALITY":1,"BROTLI_MIN_QUALITY":0,"BROTLI_MAX_QUALITY":11,"BROTLI_DEFAULT_QUALITY":11,"BROTLI_PARAM_LGWIN":2,"BROTLI_MIN_WINDOW_BITS":10,"BROTLI_MAX_WINDOW_BITS":24,"BROTLI_LARGE_MAX_WINDOW_BITS":30,"BROTLI_DEFAULT_WINDOW":22,"BROTLI_PARAM_LGBLOCK":3,"BROTLI_MIN_INPUT_BLOCK_BITS":16,"BROTLI_MAX_INPUT_BLOCK_BITS":24,"BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING":4,"BROTLI_PARAM_SIZE_HINT":5,"BROTLI_PARAM_LARGE_WINDOW":6,"BROTLI_PARAM_NPOSTFIX":7,"BROTLI_PARAM_NDIRECT":8,"BROTLI_DECODER_RESULT_ERROR":0,"BROTLI_DECODER_RESULT_SUCCESS":1,"BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT":2,"BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT":3,"BROTLI_DECODER_PARAM_DISABLE_RING_BUFFER_REALLOCATION":0,"BROTLI_DECODER_PARAM_LARGE_WINDOW":1,"BROTLI_DECODER_NO_ERROR":0,"BROTLI_DECODER_SUCCESS":1,"BROTLI_DECODER_NEEDS_MORE_INPUT":2,"BROTLI_DECODER_NEEDS_MORE_OUTPUT":3,"BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_NIBBLE":-1,"BROTLI_DECODER_ERROR_FORMAT_RESERVED":-2,"BROTLI_DECODER_ERROR_FORMAT_EXUBERANT_META_NIBBLE":-3,"BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_ALPHABET":-4,"BROTLI_DECODER_ERROR_FORMAT_SIMPLE_HUFFMAN_SAME":-5,"BROTLI_DECODER_ERROR_FORMAT_CL_SPACE":-6,"BROTLI_DECODER_ERROR_FORMAT_HUFFMAN_SPACE":-7,"BROTLI_DECODER_ERROR_FORMAT_CONTEXT_MAP_REPEAT":-8,"BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_1":-9,"BROTLI_DECODER_ERROR_FORMAT_BLOCK_LENGTH_2":-10,"BROTLI_DECODER_ERROR_FORMAT_TRANSFORM":-11,"BROTLI_DECODER_ERROR_FORMAT_DICTIONARY":-12,"BROTLI_DECODER_ERROR_FORMAT_WINDOW_BITS":-13,"BROTLI_DECODER_ERROR_FORMAT_PADDING_1":-14,"BROTLI_DECODER_ERROR_FORMAT_PADDING_2":-15,"BROTLI_DECODER_ERROR_FORMAT_DISTANCE":-16,"BROTLI_DECODER_ERROR_DICTIONARY_NOT_SET":-19,"BROTLI_DECODER_ERROR_INVALID_ARGUMENTS":-20,"BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES":-21,"BROTLI_DECODER_ERROR_ALLOC_TREE_GROUPS":-22,"BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MAP":-25,"BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_1":-26,"BROTLI_DECODER_ERROR_ALLOC_RING_BUFFER_2":-27,"BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES":-30,"BROTLI_DECODER_ERROR_UNREACHABLE":-31,"ZSTD_ENCODE":10,"ZSTD_DECODE":11,"ZSTD_COMPRESS":10,"ZSTD_DECOMPRESS":11,"ZSTD_e_continue":0,"ZSTD_e_flush":1,"ZSTD_e_end":2,"ZSTD_c_compressionLevel":100,"ZSTD_c_windowLog":101,"ZSTD_c_hashLog":102,"ZSTD_c_chainLog":103,"ZSTD_c_searchLog":104,"ZSTD_c_minMatch":105,"ZSTD_c_targetLength":106,"ZSTD_c_strategy":107,"ZSTD_c_enableLongDistanceMatching":160,"ZSTD_c_ldmHashLog":161,"ZSTD_c_ldmMinMatch":162,"ZSTD_c_ldmBucketSizeLog":163,"ZSTD_c_ldmHashRateLog":164,"ZSTD_c_contentSizeFlag":200,"ZSTD_c_checksumFlag":201,"ZSTD_c_dictIDFlag":202,"ZSTD_c_nbWorkers":400,"ZSTD_c_jobSize":401,"ZSTD_c_overlapLog":402,"ZSTD_d_windowLogMax":100,"ZSTD_fast":1,"ZSTD_dfast":2,"ZSTD_greedy":3,"ZSTD_lazy":4,"ZSTD_lazy2":5,"ZSTD_btlazy2":6,"ZSTD_btopt":7,"ZSTD_btultra":8,"ZSTD_btultra2":9,"ZSTD_CLEVEL_DEFAULT":3,"ZSTD_error_no_error":0,"ZSTD_error_GENERIC":1,"ZSTD_error_prefix_unknown":10,"ZSTD_error_version_unsupported":12,"ZSTD_error_frameParameter_unsupported":14,"ZSTD_error_frameParameter_windowTooLarge":16,"ZSTD_error_corruption_detected":20,"ZSTD_error_checksum_wrong":22,"ZSTD_error_literals_headerWrong":24,"ZSTD_error_dictionary_corrupted":30,"ZSTD_error_dictionary_wrong":32,"ZSTD_error_dictionaryCreation_failed":34,"ZSTD_error_parameter_unsupported":40,"ZSTD_error_parameter_combination_unsupported":41,"ZSTD_error_parameter_outOfBound":42,"ZSTD_error_tableLog_tooLarge":44,"ZSTD_error_maxSymbolValue_tooLarge":46,"ZSTD_error_maxSymbolValue_tooSmall":48,"ZSTD_error_stabilityCondition_notRespected":50,"ZSTD_error_stage_wrong":60,"ZSTD_error_init_missing":62,"ZSTD_error_memory_allocation":64,"ZSTD_error_workSpace_tooSmall":66,"ZSTD_error_dstSize_tooSmall":70,"ZSTD_error_srcSize_wrong":72,"ZSTD_error_dstBuffer_null":74,"ZSTD_error_noForwardProgress_destFull":80,"ZSTD_error_noForwardProgress_inputEmpty":82}`

// zlibMode is one of node:zlib's engines.
type zlibMode string

const (
	modeDeflate          zlibMode = "deflate"
	modeInflate          zlibMode = "inflate"
	modeGzip             zlibMode = "gzip"
	modeGunzip           zlibMode = "gunzip"
	modeDeflateRaw       zlibMode = "deflateRaw"
	modeInflateRaw       zlibMode = "inflateRaw"
	modeUnzip            zlibMode = "unzip"
	modeBrotliCompress   zlibMode = "brotliCompress"
	modeBrotliDecompress zlibMode = "brotliDecompress"
	modeZstdCompress     zlibMode = "zstdCompress"
	modeZstdDecompress   zlibMode = "zstdDecompress"
)

func (m zlibMode) compresses() bool {
	return m == modeDeflate || m == modeGzip || m == modeDeflateRaw || m == modeBrotliCompress || m == modeZstdCompress
}

// zlibOptions are the options node:zlib's engines read: level (zlib,
// -1..9), quality (BROTLI_PARAM_QUALITY, 0..11), zstdLevel
// (ZSTD_c_compressionLevel, 1..22, 0 the default 3) and maxOutputLength.
type zlibOptions struct {
	Level           int
	Quality         int
	ZstdLevel       int
	MaxOutputLength int64
}

// zlibStream is one engine: a compressor that writes as input arrives, or
// a decompressor that reads the whole input at end (Go's readers pull;
// node:zlib's decompression streams still emit every byte, at end).
type zlibStream struct {
	mode zlibMode
	opt  zlibOptions
	out  bytes.Buffer
	in   bytes.Buffer
	w    io.WriteCloser
	done bool
}

func newZlibStream(mode zlibMode, opt zlibOptions) (*zlibStream, error) {
	s := &zlibStream{mode: mode, opt: opt}
	var err error
	switch mode {
	case modeDeflate:
		s.w, err = zlib.NewWriterLevel(&s.out, opt.Level)
	case modeDeflateRaw:
		s.w, err = flate.NewWriter(&s.out, opt.Level)
	case modeGzip:
		var g *gzip.Writer
		g, err = gzip.NewWriterLevel(&s.out, opt.Level)
		if g != nil {
			g.OS = 3 // Unix, as zlib writes on Linux
			s.w = g
		}
	case modeBrotliCompress:
		s.w = brotli.NewWriterLevel(&s.out, opt.Quality)
	case modeZstdCompress:
		// One goroutine: the encoder works on the caller's, as zstd's
		// own single-threaded ZSTD_compressStream2 does in workerd.
		level := opt.ZstdLevel
		if level == 0 {
			level = 3 // ZSTD_CLEVEL_DEFAULT
		}
		s.w, err = zstd.NewWriter(&s.out, zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)))
	case modeInflate, modeGunzip, modeInflateRaw, modeUnzip, modeBrotliDecompress, modeZstdDecompress:
	default:
		return nil, errors.New("unknown zlib mode " + string(mode))
	}
	if err != nil {
		return nil, errors.New("Init error")
	}
	return s, nil
}

// write takes a chunk and returns what output is ready.
func (s *zlibStream) write(p []byte) ([]byte, error) {
	if s.done {
		return nil, errors.New("zlib binding closed")
	}
	if !s.mode.compresses() {
		s.in.Write(p)
		return nil, nil
	}
	if _, err := s.w.Write(p); err != nil {
		return nil, err
	}
	return s.take()
}

// flush returns everything the compressor holds (Z_SYNC_FLUSH).
func (s *zlibStream) flush() ([]byte, error) {
	if f, ok := s.w.(interface{ Flush() error }); ok && !s.done {
		if err := f.Flush(); err != nil {
			return nil, err
		}
	}
	return s.take()
}

// end finishes the stream and returns the rest of the output.
func (s *zlibStream) end() ([]byte, error) {
	if s.done {
		return nil, nil
	}
	s.done = true
	if s.mode.compresses() {
		if err := s.w.Close(); err != nil {
			return nil, err
		}
		return s.take()
	}
	r, err := s.reader(bytes.NewReader(s.in.Bytes()))
	if err != nil {
		return nil, s.decodeError(err)
	}
	if c, ok := r.(interface{ Close() }); ok {
		defer c.Close()
	}
	var src io.Reader = r
	if s.opt.MaxOutputLength > 0 {
		src = io.LimitReader(r, s.opt.MaxOutputLength+1)
	}
	if _, err := s.out.ReadFrom(src); err != nil {
		return nil, s.decodeError(err)
	}
	if s.opt.MaxOutputLength > 0 && int64(s.out.Len()) > s.opt.MaxOutputLength {
		return nil, errOutputTooLarge
	}
	return s.take()
}

// decodeError is a decompressor's error in the words of its library's C
// original (zlib's, brotli's, zstd's), as workerd reports it.
func (s *zlibStream) decodeError(err error) error {
	if s.mode == modeZstdDecompress {
		return zstdError(err)
	}
	return zlibError(err)
}

func (s *zlibStream) take() ([]byte, error) {
	if s.opt.MaxOutputLength > 0 && int64(s.out.Len()) > s.opt.MaxOutputLength {
		return nil, errOutputTooLarge
	}
	b := bytes.Clone(s.out.Bytes())
	s.out.Reset()
	return b, nil
}

func (s *zlibStream) reader(in *bytes.Reader) (io.Reader, error) {
	mode := s.mode
	if mode == modeUnzip {
		mode = modeInflate
		if b := in.Len(); b >= 2 {
			var magic [2]byte
			_, _ = in.ReadAt(magic[:], 0)
			if magic == [2]byte{0x1f, 0x8b} {
				mode = modeGunzip
			}
		}
	}
	switch mode {
	case modeInflate:
		return zlib.NewReader(in)
	case modeInflateRaw:
		return flate.NewReader(in), nil
	case modeGunzip:
		// zlib checks the magic bytes as they arrive; Go's reader first
		// waits for a whole 10-byte header.
		var magic [2]byte
		n, _ := in.ReadAt(magic[:], 0)
		if (n >= 1 && magic[0] != 0x1f) || (n == 2 && magic[1] != 0x8b) {
			return nil, gzip.ErrHeader
		}
		return gzip.NewReader(in)
	case modeZstdDecompress:
		// Synchronous (one goroutine), with its window bounded as
		// zstd's default ZSTD_d_windowLogMax (27) bounds it.
		d, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(1<<27))
		if err != nil {
			return nil, err
		}
		return zstdReader{d}, nil
	default:
		return brotli.NewReader(in), nil
	}
}

// zstdReader is a zstd decoder read to the end and closed after.
type zstdReader struct{ d *zstd.Decoder }

func (z zstdReader) Read(p []byte) (int, error) { return z.d.Read(p) }
func (z zstdReader) Close()                     { z.d.Close() }

// zstdError turns a zstd decoder's error into workerd's message, "Zstd
// decompression failed: " and zstd's ZSTD_getErrorString text, or zlib's
// "Unexpected end of file" for a frame cut short.
func zstdError(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("Unexpected end of file")
	case errors.Is(err, zstd.ErrMagicMismatch):
		return errors.New("Zstd decompression failed: Unknown frame descriptor")
	case errors.Is(err, zstd.ErrCRCMismatch):
		return errors.New("Zstd decompression failed: Restored data doesn't match checksum")
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return errors.New("Zstd decompression failed: Frame requires too much memory for decoding")
	case errors.Is(err, errOutputTooLarge):
		return err
	}
	return errors.New("Zstd decompression failed: Data corruption detected")
}

var errOutputTooLarge = errors.New("output too large")

// zlibError turns a Go decompression error into zlib's message, the text
// workerd's node:zlib gives (as Node's: zlib's own msg strings).
func zlibError(err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, zlib.ErrHeader), errors.Is(err, gzip.ErrHeader), errors.Is(err, zlib.ErrDictionary):
		return errors.New("incorrect header check")
	case errors.Is(err, zlib.ErrChecksum), errors.Is(err, gzip.ErrChecksum):
		return errors.New("incorrect data check")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errors.New("unexpected end of file")
	case errors.As(err, &corrupt):
		return errors.New("invalid block type")
	case errors.Is(err, errOutputTooLarge):
		return err
	}
	if bytes.HasPrefix([]byte(err.Error()), []byte("brotli")) {
		return errors.New("Decompression failed")
	}
	return err
}

// zlibNative is the native half of node:zlib (the JavaScript half is in
// modules.js): engines, one-shot processing and crc32.
func zlibNative(rt *goja.Runtime) *goja.Object {
	o := rt.NewObject()
	opts := func(v goja.Value) zlibOptions {
		opt := zlibOptions{Level: -1, Quality: 11}
		if obj, ok := v.(*goja.Object); ok {
			if l := obj.Get("level"); l != nil && !goja.IsUndefined(l) {
				opt.Level = int(l.ToInteger())
			}
			if q := obj.Get("quality"); q != nil && !goja.IsUndefined(q) {
				opt.Quality = int(q.ToInteger())
			}
			if q := obj.Get("zstdLevel"); q != nil && !goja.IsUndefined(q) {
				opt.ZstdLevel = int(q.ToInteger())
			}
			if m := obj.Get("maxOutputLength"); m != nil && !goja.IsUndefined(m) {
				opt.MaxOutputLength = m.ToInteger()
			}
		}
		return opt
	}
	throw := func(mode zlibMode, err error) {
		if strings.HasPrefix(string(mode), "zstd") {
			// workerd's zstd: JSG_REQUIRE's plain RangeError past
			// maxOutputLength; the decoder's own errors carry a code.
			if errors.Is(err, errOutputTooLarge) {
				panic(plainRangeError(rt, "Memory limit exceeded"))
			}
			code := "ERR_ZSTD_DECOMPRESSION_FAILED"
			if mode == modeZstdCompress {
				code = "ERR_ZSTD_COMPRESSION_FAILED"
			} else if err.Error() == "Unexpected end of file" {
				code = "Z_BUF_ERROR"
			}
			panic(nodeError(rt, "Error", code, err.Error()))
		}
		if errors.Is(err, errOutputTooLarge) {
			panic(nodeError(rt, "RangeError", "ERR_BUFFER_TOO_LARGE", "Cannot create a Buffer larger than the maxOutputLength option"))
		}
		panic(plainError(rt, zlibError(err).Error()))
	}
	wrap := func(b []byte) goja.Value { return buffer.WrapBytes(rt, b) }
	_ = o.Set("constants", zlibConstants)
	_ = o.Set("engine", func(mode string, opt goja.Value) *goja.Object {
		s, err := newZlibStream(zlibMode(mode), opts(opt))
		if err != nil {
			throw(zlibMode(mode), err)
		}
		e := rt.NewObject()
		_ = e.Set("write", func(chunk goja.Value) goja.Value {
			b, err := s.write(data(rt, chunk, goja.Undefined()))
			if err != nil {
				throw(zlibMode(mode), err)
			}
			return wrap(b)
		})
		_ = e.Set("flush", func() goja.Value {
			b, err := s.flush()
			if err != nil {
				throw(zlibMode(mode), err)
			}
			return wrap(b)
		})
		_ = e.Set("end", func() goja.Value {
			b, err := s.end()
			if err != nil {
				throw(zlibMode(mode), err)
			}
			return wrap(b)
		})
		return e
	})
	_ = o.Set("process", func(mode string, in goja.Value, opt goja.Value) goja.Value {
		s, err := newZlibStream(zlibMode(mode), opts(opt))
		if err != nil {
			throw(zlibMode(mode), err)
		}
		head, err := s.write(data(rt, in, goja.Undefined()))
		if err != nil {
			throw(zlibMode(mode), err)
		}
		tail, err := s.end()
		if err != nil {
			throw(zlibMode(mode), err)
		}
		return wrap(append(head, tail...))
	})
	_ = o.Set("crc32", func(in goja.Value, value goja.Value) uint32 {
		var init uint32
		if !goja.IsUndefined(value) {
			init = uint32(value.ToInteger())
		}
		return crc32.Update(init, crc32.IEEETable, data(rt, in, goja.Undefined()))
	})
	return o
}
