package goja

// IntValue is the JavaScript number i, the value ToValue(i) gives, made
// without boxing i into an interface{} first (ToValue's argument escapes,
// so each call of it on an integer of 256 or more allocates once more than
// the value itself). For embedders that convert numbers on hot paths (a
// WebAssembly export's i32 result, an import's arguments). (cellhost patch 28)
func IntValue(i int64) Value { return intToValue(i) }

// FloatValue is the JavaScript number f, the value ToValue(f) gives
// (integral values as integers, -0, NaN and the infinities as the runtime's
// own), without boxing f into an interface{} first. (cellhost patch 28)
func FloatValue(f float64) Value { return floatToValue(f) }
