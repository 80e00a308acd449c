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

  ;; Candidates for many needles at once: every position p in [$from, $to)
  ;; whose three bytes p, p + 1, p + 2 pass the nibble tables at $tables,
  ;; written in order as i32s at $out, at most $max of them; returns how
  ;; many. $to is at most $len - 2.
  ;;
  ;; The tables (a variant of Hyperscan's "Teddy"): for byte j (j < 3) of
  ;; the three a needle is filtered by, 16 bytes indexed by a low nibble, then
  ;; 16 by its high nibble, each holding one bit per bucket of needles.
  ;; A position passes when some bucket's bit survives the AND over the
  ;; three bytes; a table that all needles skip holds 0xff everywhere.
  ;; Every real match passes; the caller compares the candidates whole.
  ;; The lookups are relaxed swizzles (one pshufb on x86): their indices,
  ;; nibbles, are below 16, where they give exactly what swizzle gives.
  (func (export "find_candidates")
    (param $len i32) (param $from i32) (param $to i32) (param $tables i32)
    (param $out i32) (param $max i32) (result i32)
    (local $i i32) (local $count i32) (local $mask i32) (local $b i32)
    (local $j i32) (local $pass i32)
    (local $v v128) (local $m v128) (local $nibble v128)
    (local $lo0 v128) (local $hi0 v128) (local $lo1 v128) (local $hi1 v128)
    (local $lo2 v128) (local $hi2 v128)
    (local.set $nibble (i8x16.splat (i32.const 0x0f)))
    (local.set $lo0 (v128.load offset=0 (local.get $tables)))
    (local.set $hi0 (v128.load offset=16 (local.get $tables)))
    (local.set $lo1 (v128.load offset=32 (local.get $tables)))
    (local.set $hi1 (v128.load offset=48 (local.get $tables)))
    (local.set $lo2 (v128.load offset=64 (local.get $tables)))
    (local.set $hi2 (v128.load offset=80 (local.get $tables)))
    (local.set $i (local.get $from))
    ;; Blocks of 16 positions while their loads (to p + 17) stay below $len.
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done (i32.gt_s (i32.add (local.get $i) (i32.const 16)) (local.get $to)))
        (br_if $blocks_done (i32.gt_s (i32.add (local.get $i) (i32.const 18)) (local.get $len)))
        (local.set $v (v128.load (local.get $i)))
        (local.set $m (v128.and
          (i8x16.relaxed_swizzle (local.get $lo0) (v128.and (local.get $v) (local.get $nibble)))
          (i8x16.relaxed_swizzle (local.get $hi0) (i8x16.shr_u (local.get $v) (i32.const 4)))))
        (local.set $v (v128.load offset=1 (local.get $i)))
        (local.set $m (v128.and (local.get $m) (v128.and
          (i8x16.relaxed_swizzle (local.get $lo1) (v128.and (local.get $v) (local.get $nibble)))
          (i8x16.relaxed_swizzle (local.get $hi1) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (local.set $v (v128.load offset=2 (local.get $i)))
        (local.set $m (v128.and (local.get $m) (v128.and
          (i8x16.relaxed_swizzle (local.get $lo2) (v128.and (local.get $v) (local.get $nibble)))
          (i8x16.relaxed_swizzle (local.get $hi2) (i8x16.shr_u (local.get $v) (i32.const 4))))))
        (if (v128.any_true (local.get $m))
          (then
            (local.set $mask (i8x16.bitmask
              (i8x16.ne (local.get $m) (v128.const i64x2 0 0))))
            (block $lanes_done
              (loop $lanes
                (br_if $lanes_done (i32.eqz (local.get $mask)))
                (i32.store
                  (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2)))
                  (i32.add (local.get $i) (i32.ctz (local.get $mask))))
                (local.set $count (i32.add (local.get $count) (i32.const 1)))
                (if (i32.ge_s (local.get $count) (local.get $max))
                  (then (return (local.get $count))))
                (local.set $mask
                  (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
                (br $lanes)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    ;; The last positions, one at a time.
    (block $none
      (loop $tail
        (br_if $none (i32.ge_s (local.get $i) (local.get $to)))
        (local.set $pass (i32.const 0xff))
        (local.set $j (i32.const 0))
        (block $bytes_done
          (loop $bytes
            (br_if $bytes_done (i32.ge_s (local.get $j) (i32.const 3)))
            (local.set $b (i32.load8_u (i32.add (local.get $i) (local.get $j))))
            (local.set $pass (i32.and (local.get $pass) (i32.and
              (i32.load8_u (i32.add
                (i32.add (local.get $tables) (i32.shl (local.get $j) (i32.const 5)))
                (i32.and (local.get $b) (i32.const 0x0f))))
              (i32.load8_u offset=16 (i32.add
                (i32.add (local.get $tables) (i32.shl (local.get $j) (i32.const 5)))
                (i32.shr_u (local.get $b) (i32.const 4)))))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $bytes)))
        (if (local.get $pass)
          (then
            (i32.store
              (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2)))
              (local.get $i))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (if (i32.ge_s (local.get $count) (local.get $max))
              (then (return (local.get $count))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (local.get $count))

  ;; How many times the haystack [$from, $to) holds $byte. Sixteen bytes a
  ;; step: each equal lane is -1, summed per lane for up to 255 steps.
  (func (export "count_byte")
    (param $from i32) (param $to i32) (param $byte i32) (result i32)
    (local $i i32) (local $n i32) (local $steps i32)
    (local $splat v128) (local $sums v128)
    (local.set $splat (i8x16.splat (local.get $byte)))
    (local.set $i (local.get $from))
    (block $blocks_done
      (loop $blocks
        (br_if $blocks_done
          (i32.gt_s (i32.add (local.get $i) (i32.const 16)) (local.get $to)))
        (local.set $sums (i8x16.sub (local.get $sums)
          (i8x16.eq (v128.load (local.get $i)) (local.get $splat))))
        (local.set $steps (i32.add (local.get $steps) (i32.const 1)))
        (if (i32.eq (local.get $steps) (i32.const 255))
          (then
            (local.set $n (i32.add (local.get $n) (call $lanes_sum (local.get $sums))))
            (local.set $sums (v128.const i64x2 0 0))
            (local.set $steps (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $blocks)))
    (local.set $n (i32.add (local.get $n) (call $lanes_sum (local.get $sums))))
    (block $none
      (loop $tail
        (br_if $none (i32.ge_s (local.get $i) (local.get $to)))
        (if (i32.eq (i32.load8_u (local.get $i)) (local.get $byte))
          (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (local.get $n))

  ;; The sum of the sixteen unsigned byte lanes of $v.
  (func $lanes_sum (param $v v128) (result i32)
    (local $w v128)
    (local.set $w (i32x4.extadd_pairwise_i16x8_u
      (i16x8.extadd_pairwise_i8x16_u (local.get $v))))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $w)) (i32x4.extract_lane 1 (local.get $w)))
      (i32.add (i32x4.extract_lane 2 (local.get $w)) (i32x4.extract_lane 3 (local.get $w)))))
)
