;; Byte search with WebAssembly SIMD, for byte_search.ts. Build the module
;; with `deno task build-wasm`; it writes _byte_search_wasm.ts.
;;
;; The caller puts the haystack at address 0 and a needle after it. Every
;; function reads only [0, len) of the haystack and [n, n + m) of the
;; needle; lengths are below 2^31.
(module
  (import "env" "memory" (memory 1))

  ;; Whether the m bytes at a and at b are equal: 1 or 0.
  (func $equal (param $a i32) (param $b i32) (param $m i32) (result i32)
    (local $k i32)
    ;; Eight bytes at a time, then one.
    (block $bytes
      (loop $words
        (br_if $bytes (i32.gt_s (i32.add (local.get $k) (i32.const 8)) (local.get $m)))
        (if (i64.ne (i64.load (i32.add (local.get $a) (local.get $k)))
                    (i64.load (i32.add (local.get $b) (local.get $k))))
          (then (return (i32.const 0))))
        (local.set $k (i32.add (local.get $k) (i32.const 8)))
        (br $words)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_s (local.get $k) (local.get $m)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $k)))
                    (i32.load8_u (i32.add (local.get $b) (local.get $k))))
          (then (return (i32.const 0))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each)))
    (i32.const 1))

  ;; The first index at or after $from where the haystack [0, $len) holds
  ;; the needle [$n, $n + $m), or -1; $m is at least 1.
  ;;
  ;; Sixteen positions at a time, a position is a candidate when both the
  ;; needle's first and last bytes are where they would be; only candidates
  ;; are compared whole (W. Muła, "SIMD-friendly algorithms for substring
  ;; searching").
  (func (export "find")
    (param $len i32) (param $n i32) (param $m i32) (param $from i32)
    (result i32)
    (local $i i32) (local $end i32) (local $mask i32) (local $at i32)
    (local $first v128) (local $last v128)
    (local.set $first (i8x16.splat (i32.load8_u (local.get $n))))
    (local.set $last (i8x16.splat
      (i32.load8_u (i32.add (local.get $n) (i32.sub (local.get $m) (i32.const 1))))))
    (local.set $i (local.get $from))
    ;; A block of 16 starts at $i; its last-byte load ends at $i + $m + 14.
    (local.set $end (i32.sub (local.get $len) (i32.add (local.get $m) (i32.const 15))))
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done (i32.gt_s (local.get $i) (local.get $end)))
        (local.set $mask (i8x16.bitmask (v128.and
          (i8x16.eq (v128.load (local.get $i)) (local.get $first))
          (i8x16.eq
            (v128.load (i32.add (local.get $i) (i32.sub (local.get $m) (i32.const 1))))
            (local.get $last)))))
        (block $candidates_done
          (loop $candidates
            (br_if $candidates_done (i32.eqz (local.get $mask)))
            (local.set $at (i32.add (local.get $i) (i32.ctz (local.get $mask))))
            (if (call $equal (local.get $at) (local.get $n) (local.get $m))
              (then (return (local.get $at))))
            (local.set $mask
              (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
            (br $candidates)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    ;; The last few positions, one at a time.
    (local.set $end (i32.sub (local.get $len) (local.get $m)))
    (block $none
      (loop $tail
        (br_if $none (i32.gt_s (local.get $i) (local.get $end)))
        (if (call $equal (local.get $i) (local.get $n) (local.get $m))
          (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (i32.const -1))

  ;; The first index at or after $from where the haystack [0, $len) holds
  ;; $byte, or -1. Sixty-four bytes a step.
  (func (export "find_byte")
    (param $len i32) (param $byte i32) (param $from i32) (result i32)
    (local $i i32) (local $splat v128)
    (local.set $splat (i8x16.splat (local.get $byte)))
    (local.set $i (local.get $from))
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done
          (i32.gt_s (local.get $i) (i32.sub (local.get $len) (i32.const 64))))
        (br_if $blocks_done (v128.any_true (v128.or
          (v128.or
            (i8x16.eq (v128.load offset=0 (local.get $i)) (local.get $splat))
            (i8x16.eq (v128.load offset=16 (local.get $i)) (local.get $splat)))
          (v128.or
            (i8x16.eq (v128.load offset=32 (local.get $i)) (local.get $splat))
            (i8x16.eq (v128.load offset=48 (local.get $i)) (local.get $splat))))))
        (local.set $i (i32.add (local.get $i) (i32.const 64)))
        (br $blocks)))
    ;; The block holding the byte, or the last few bytes: one at a time.
    (block $none
      (loop $tail
        (br_if $none (i32.ge_s (local.get $i) (local.get $len)))
        (if (i32.eq (i32.load8_u (local.get $i)) (local.get $byte))
          (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (i32.const -1))
)
