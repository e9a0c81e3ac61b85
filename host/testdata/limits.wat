;; host/wasm_test.go: a wasm loop that never ends and one that grows its
;; memory until refused. Built with wabt: wat2wasm limits.wat -o limits.wasm
(module
  (memory (export "memory") 1)
  (func (export "spin") (loop $l (br $l)))
  (func (export "eat") (result i32)
    (loop $l (br_if $l (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
    (memory.size))
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
)
