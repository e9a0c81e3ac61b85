;; Imports a memory and globals made in JavaScript.
(module
  (import "env" "memory" (memory 1))
  (import "env" "base" (global $base i32))
  (import "env" "g" (global $g (mut i64)))
  (import "js" "f" (func $f (param f64) (result f64)))
  (func (export "read") (param i32) (result i32) (i32.load (i32.add (global.get $base) (local.get 0))))
  (func (export "incg") (global.set $g (i64.add (global.get $g) (i64.const 1))))
  (func (export "twice") (param f64) (result f64) (call $f (call $f (local.get 0))))
)
