;; bench/wasm.sh: the JS/wasm boundary and a CPU-bound loop.
;; Built with wabt (npm): wat2wasm calls.wat -o calls.wasm
(module
  (import "env" "f" (func $f (param i32) (result i32)))
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  ;; calls the JS import n times; returns the sum of its results
  (func (export "callJs") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $s (i32.add (local.get $s) (call $f (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $s))
  ;; n rounds of a 64-bit mix (splitmix64): pure compute
  (func (export "mix") (param $n i32) (result i64) (local $x i64) (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $x (i64.add (local.get $x) (i64.const 0x9e3779b97f4a7c15)))
      (local.set $x (i64.mul (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 30))) (i64.const 0xbf58476d1ce4e5b9)))
      (local.set $x (i64.mul (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 27))) (i64.const 0x94d049bb133111eb)))
      (local.set $x (i64.xor (local.get $x) (i64.shr_u (local.get $x) (i64.const 31))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $x))
)
