package clone

// The format's constants, for the black-box tests that build bytes by hand.
const (
	V8Version   = v8Version
	V8Write     = v8WriteVersion
	TagNull     = v8Null
	TagRef      = v8ObjectRef
	TagObject   = v8BeginObject
	TagEndObj   = v8EndObject
	TagDense    = v8BeginDense
	TagEndDense = v8EndDense
	TagStr      = v8OneByteString
	TagRegExp   = v8RegExp
	TagBuffer   = v8ArrayBuffer
	TagView     = v8ArrayBufferView
	TagError    = v8Error
	TagInt      = v8Int32
)
