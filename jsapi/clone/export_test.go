package clone

// The format's constants, for the black-box tests that build bytes by hand.
const (
	Version        = version
	TagNull        = tagNull
	TagRef         = tagRef
	TagObject      = tagObject
	TagDenseArray  = tagDenseArray
	TagStr8        = tagStr8
	TagRegExp      = tagRegExp
	TagArrayBuffer = tagArrayBuffer
	TagTypedArray  = tagTypedArray
	TagError       = tagError
)
