;; Fused float32 kernels with WebAssembly SIMD, for tfjs-backend-wasm's heap (see
;; wasmElementwise.ts, which loads and registers them): the transformer's GELU and LayerNorm, and
;; their gradients; and Adam's update of one variable (adam.ts).
;;
;; Why: tfjs composes GELU's tanh approximation 0.5 x (1 + tanh(c (x + a x^3))) from ~9 ops, each a
;; pass over a [B*T, 4d] tensor, and its gradient from as many more; tfjs-wasm's Tanh is a scalar
;; libm loop. Here one pass computes the value (one more the gradient), four lanes at a time.
;; LayerNorm likewise (tf.moments and five more ops, and their gradients): one kernel per direction
;; that reads each row two or three times while it is in L1.
;;
;; Like batchMatMulKernel.wat, the module has no memory of its own and no static data: it imports
;; tfjs-wasm's memory ("env" "memory"; scripts/buildKernels.ts also builds a copy that declares it
;; shared) and reads and writes tensors in place. Every exported function takes byte addresses.
;;
;; GELU method. With u = c (x + a x^3), c = sqrt(2/pi), a = 0.044715, the same function reads
;;   gelu(x) = 0.5 x (1 + tanh u) = x s,   s = 1 / (1 + e),   e = exp(-2u)   (s is sigmoid(2u)),
;;   gelu'(x) = s + x s (1 - s) 2u' = s + (x s) (e s) (2c + 6ac x^2)        (1 - s = e s exactly),
;; which needs one exp and one division and no cancellation (1 + tanh u loses digits for u << 0).
;; exp(-2u) = 2^t with t = -2 log2(e) u = K x (1 + a x^2); 2^t = 2^n 2^f with n = nearest(t),
;; f = t - n in [-0.5, 0.5], 2^f by Cephes's exp2f polynomial (degree 6, relative error ~1e-7)
;; and 2^n from exponent bits.
;; Range: the polynomial and the exponent bits see x clamped to [-10, 10], where |t| <= 125.97, so
;; 2^n stays a normal float and nothing overflows; past the clamp s is already 1 (x > 10: gelu = x
;; exactly, gelu' = 1) or below 1e-37, and for x < -10 s is set to exactly 0 (gelu = -0, gelu' = 0,
;; and -Infinity gives NaN like tfjs's composite). NaN gives NaN (min/max/compare propagate it).
;; Multiply-adds (the polynomial's Horner steps, LayerNorm's sums of products and its affine
;; output) are relaxed SIMD's f32x4.relaxed_madd / relaxed_nmadd: fused where the CPU has FMA;
;; scripts/buildKernels.ts also builds the plain SIMD fallback, each written as a multiply and an
;; add (or subtract). Fused, a result may differ from the fallback's in its last bit or two.
;; Deliberate simplification: the n % 4 tail elements go through the same 4-lane code with
;; single-lane loads and stores.
(module
  (import "env" "memory" (memory 1))

  ;; The last count (1..3) floats at p as lanes 0..count-1 of a vector (the other lanes 0).
  (func $loadTail (param $p i32) (param $count i32) (result v128)
    (local $v v128)
    (local.set $v (v128.load32_lane 0 (local.get $p) (v128.const i32x4 0 0 0 0)))
    (if (i32.ge_u (local.get $count) (i32.const 2))
      (then (local.set $v (v128.load32_lane offset=4 1 (local.get $p) (local.get $v)))))
    (if (i32.ge_u (local.get $count) (i32.const 3))
      (then (local.set $v (v128.load32_lane offset=8 2 (local.get $p) (local.get $v)))))
    (local.get $v))

  ;; Stores lanes 0..count-1 (count 1..3) of v at p.
  (func $storeTail (param $p i32) (param $count i32) (param $v v128)
    (v128.store32_lane 0 (local.get $p) (local.get $v))
    (if (i32.ge_u (local.get $count) (i32.const 2))
      (then (v128.store32_lane offset=4 1 (local.get $p) (local.get $v))))
    (if (i32.ge_u (local.get $count) (i32.const 3))
      (then (v128.store32_lane offset=8 2 (local.get $p) (local.get $v)))))

  ;; One pass over n floats: out[i] = gelu(x[i]) (grad = 0), or dy[i] gelu'(x[i]) (grad = 1).
  ;; The math is written out in the loop (V8 does not inline wasm calls), once for both: the
  ;; branch on grad is the same for every vector. The last n % 4 floats go through the same body,
  ;; loaded and stored lane by lane. out may equal x or dy.
  (func $geluPass (param $x i32) (param $dy i32) (param $out i32) (param $n i32) (param $grad i32)
    (local $xv v128) (local $xc v128) (local $x2 v128) (local $t v128) (local $r v128) (local $f v128)
    (local $p v128) (local $e v128) (local $s v128) (local $result v128)
    (block $done
      (loop $vectors
        (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
        (local.set $xv (if (result v128) (i32.ge_s (local.get $n) (i32.const 4))
          (then (v128.load (local.get $x)))
          (else (call $loadTail (local.get $x) (local.get $n)))))
        ;; xc = x clamped to [-10, 10]; pmax/pmin with x first return x when it is NaN.
        (local.set $xc (f32x4.pmin (f32x4.pmax (local.get $xv) (v128.const f32x4 -10 -10 -10 -10)) (v128.const f32x4 10 10 10 10)))
        (local.set $x2 (f32x4.mul (local.get $xc) (local.get $xc)))
        ;; t = K xc (1 + a xc^2), K = -2 log2(e) sqrt(2/pi): e = exp(-2u) = 2^t, |t| <= 125.97.
        (local.set $t (f32x4.mul (f32x4.mul (local.get $xc) (v128.const f32x4 -2.302208198144325 -2.302208198144325 -2.302208198144325 -2.302208198144325))
                                 (f32x4.relaxed_madd (v128.const f32x4 0.044715 0.044715 0.044715 0.044715) (local.get $x2) (v128.const f32x4 1 1 1 1))))
        ;; n = nearest(t) by the 1.5 * 2^23 trick: r's low mantissa bits hold n (two's complement),
        ;; r - 1.5 * 2^23 is n exactly, and (bits(r) + 127) << 23 is 2^n (the high bits shift out).
        (local.set $r (f32x4.add (local.get $t) (v128.const f32x4 12582912 12582912 12582912 12582912)))
        (local.set $f (f32x4.sub (local.get $t) (f32x4.sub (local.get $r) (v128.const f32x4 12582912 12582912 12582912 12582912))))
        ;; 2^f for f in [-0.5, 0.5], Horner: ((((((p6 f + p5) f + p4) f + p3) f + p2) f + p1) f + 1.
        (local.set $p (f32x4.relaxed_madd (v128.const f32x4 1.535336188319500e-4 1.535336188319500e-4 1.535336188319500e-4 1.535336188319500e-4) (local.get $f) (v128.const f32x4 1.339887440266574e-3 1.339887440266574e-3 1.339887440266574e-3 1.339887440266574e-3)))
        (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $f) (v128.const f32x4 9.618437357674640e-3 9.618437357674640e-3 9.618437357674640e-3 9.618437357674640e-3)))
        (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $f) (v128.const f32x4 5.550332471162809e-2 5.550332471162809e-2 5.550332471162809e-2 5.550332471162809e-2)))
        (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $f) (v128.const f32x4 2.402264791363012e-1 2.402264791363012e-1 2.402264791363012e-1 2.402264791363012e-1)))
        (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $f) (v128.const f32x4 6.931472028550421e-1 6.931472028550421e-1 6.931472028550421e-1 6.931472028550421e-1)))
        (local.set $p (f32x4.relaxed_madd (local.get $p) (local.get $f) (v128.const f32x4 1 1 1 1)))
        (local.set $e (f32x4.mul (local.get $p)
          (i32x4.shl (i32x4.add (local.get $r) (v128.const i32x4 127 127 127 127)) (i32.const 23))))
        ;; s = 1 / (1 + e), and exactly 0 where x < -10 or x is NaN (the compare is false there).
        (local.set $s (v128.and (f32x4.div (v128.const f32x4 1 1 1 1) (f32x4.add (v128.const f32x4 1 1 1 1) (local.get $e)))
                                (f32x4.ge (local.get $xv) (v128.const f32x4 -10 -10 -10 -10))))
        (local.set $result (if (result v128) (local.get $grad)
          ;; dy (s + (xc s) (e s) (2c + 6ac xc^2)); xc, not x, keeps the second term finite for
          ;; huge |x|, where it is below 1e-35 anyway.
          (then (f32x4.mul
            (if (result v128) (i32.ge_s (local.get $n) (i32.const 4))
              (then (v128.load (local.get $dy)))
              (else (call $loadTail (local.get $dy) (local.get $n))))
            (f32x4.relaxed_madd
              (f32x4.mul (f32x4.mul (local.get $xc) (local.get $s)) (f32x4.mul (local.get $e) (local.get $s)))
              (f32x4.relaxed_madd (v128.const f32x4 0.21406444881780073 0.21406444881780073 0.21406444881780073 0.21406444881780073) (local.get $x2)
                                  (v128.const f32x4 1.5957691216057308 1.5957691216057308 1.5957691216057308 1.5957691216057308))
              (local.get $s))))
          ;; x s
          (else (f32x4.mul (local.get $xv) (local.get $s)))))
        (if (i32.ge_s (local.get $n) (i32.const 4))
          (then (v128.store (local.get $out) (local.get $result)))
          (else (call $storeTail (local.get $out) (local.get $n) (local.get $result))))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $dy (i32.add (local.get $dy) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $n (i32.sub (local.get $n) (i32.const 4)))
        (br $vectors))))

  ;; y[i] = gelu(x[i]) for i < n.
  (func (export "gelu") (param $x i32) (param $y i32) (param $n i32)
    (call $geluPass (local.get $x) (local.get $x) (local.get $y) (local.get $n) (i32.const 0)))

  ;; dx[i] = dy[i] gelu'(x[i]) for i < n.
  (func (export "geluGrad") (param $x i32) (param $dy i32) (param $dx i32) (param $n i32)
    (call $geluPass (local.get $x) (local.get $dy) (local.get $dx) (local.get $n) (i32.const 1)))
;; ---------------------------------------------------------------------------------------------
;; LayerNorm over the last axis: rows of d floats, y = (x - mean) rstd gamma + beta with
;; rstd = 1 / sqrt(var + eps), var the biased variance, computed in two passes (mean, then the
;; mean square deviation) like tf.moments. Rows need not be 16-byte aligned (d % 4 != 0): the
;; loads are unaligned and the last d % 4 floats of a row take a scalar loop.

  ;; The sum of a vector's four lanes.
  (func $sum4 (param $v v128) (result f32)
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
             (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; Per row r < rows: y[r] = (x[r] - mean) rstd gamma + beta, and mean[r], rstd[r] stored for the
  ;; gradient. x, y: [rows][d]; gamma, beta: [d]; mean, rstd: [rows].
  (func (export "layerNorm") (param $x i32) (param $gamma i32) (param $beta i32) (param $y i32)
        (param $mean i32) (param $rstd i32) (param $rows i32) (param $d i32) (param $eps f32)
    (local $vecBytes i32) (local $rowBytes i32) (local $i i32) (local $acc v128) (local $v v128)
    (local $m f32) (local $r f32) (local $sum f32) (local $dev f32) (local $mv v128) (local $rv v128)
    (local.set $rowBytes (i32.shl (local.get $d) (i32.const 2)))
    (local.set $vecBytes (i32.and (local.get $rowBytes) (i32.const -16)))
    (block $rowsDone
      (loop $rowLoop
        (br_if $rowsDone (i32.eqz (local.get $rows)))
        ;; mean
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $d1 (loop $l1
          (br_if $d1 (i32.ge_u (local.get $i) (local.get $vecBytes)))
          (local.set $acc (f32x4.add (local.get $acc) (v128.load (i32.add (local.get $x) (local.get $i)))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $l1)))
        (local.set $sum (call $sum4 (local.get $acc)))
        (block $t1 (loop $s1
          (br_if $t1 (i32.ge_u (local.get $i) (local.get $rowBytes)))
          (local.set $sum (f32.add (local.get $sum) (f32.load (i32.add (local.get $x) (local.get $i)))))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br $s1)))
        (local.set $m (f32.div (local.get $sum) (f32.convert_i32_u (local.get $d))))
        (local.set $mv (f32x4.splat (local.get $m)))
        ;; variance: the mean of (x - mean)^2
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $d2 (loop $l2
          (br_if $d2 (i32.ge_u (local.get $i) (local.get $vecBytes)))
          (local.set $v (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $i))) (local.get $mv)))
          (local.set $acc (f32x4.relaxed_madd (local.get $v) (local.get $v) (local.get $acc)))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $l2)))
        (local.set $sum (call $sum4 (local.get $acc)))
        (block $t2 (loop $s2
          (br_if $t2 (i32.ge_u (local.get $i) (local.get $rowBytes)))
          (local.set $dev (f32.sub (f32.load (i32.add (local.get $x) (local.get $i))) (local.get $m)))
          (local.set $sum (f32.add (local.get $sum) (f32.mul (local.get $dev) (local.get $dev))))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br $s2)))
        (local.set $r (f32.div (f32.const 1)
          (f32.sqrt (f32.add (f32.div (local.get $sum) (f32.convert_i32_u (local.get $d))) (local.get $eps)))))
        (local.set $rv (f32x4.splat (local.get $r)))
        (f32.store (local.get $mean) (local.get $m))
        (f32.store (local.get $rstd) (local.get $r))
        ;; y = (x - mean) rstd gamma + beta
        (local.set $i (i32.const 0))
        (block $d3 (loop $l3
          (br_if $d3 (i32.ge_u (local.get $i) (local.get $vecBytes)))
          (v128.store (i32.add (local.get $y) (local.get $i))
            (f32x4.relaxed_madd (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $i))) (local.get $mv)) (local.get $rv))
                                (v128.load (i32.add (local.get $gamma) (local.get $i)))
                                (v128.load (i32.add (local.get $beta) (local.get $i)))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $l3)))
        (block $t3 (loop $s3
          (br_if $t3 (i32.ge_u (local.get $i) (local.get $rowBytes)))
          (f32.store (i32.add (local.get $y) (local.get $i))
            (f32.add (f32.mul (f32.mul (f32.sub (f32.load (i32.add (local.get $x) (local.get $i))) (local.get $m)) (local.get $r))
                              (f32.load (i32.add (local.get $gamma) (local.get $i))))
                     (f32.load (i32.add (local.get $beta) (local.get $i)))))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br $s3)))
        (local.set $x (i32.add (local.get $x) (local.get $rowBytes)))
        (local.set $y (i32.add (local.get $y) (local.get $rowBytes)))
        (local.set $mean (i32.add (local.get $mean) (i32.const 4)))
        (local.set $rstd (i32.add (local.get $rstd) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $rowLoop))))

  ;; The gradient of layerNorm given dy ([rows][d]) and the forward's mean and rstd: with
  ;; xhat = (x - mean) rstd and g = dy gamma,
  ;;   dx = rstd (g - mean(g) - xhat mean(g xhat))   (per row, means over the row),
  ;;   dgamma = sum over rows of dy xhat,   dbeta = sum over rows of dy   (both [d], overwritten).
  (func (export "layerNormGrad") (param $x i32) (param $gamma i32) (param $mean i32) (param $rstd i32)
        (param $dy i32) (param $dx i32) (param $dgamma i32) (param $dbeta i32) (param $rows i32) (param $d i32)
    (local $vecBytes i32) (local $rowBytes i32) (local $i i32) (local $mv v128) (local $rv v128)
    (local $xhat v128) (local $dyv v128) (local $g v128) (local $accG v128) (local $accGX v128)
    (local $m f32) (local $r f32) (local $sh f32) (local $sdy f32) (local $sg f32) (local $sgx f32)
    (local $av v128) (local $bv v128) (local $a f32) (local $b f32)
    (local.set $rowBytes (i32.shl (local.get $d) (i32.const 2)))
    (local.set $vecBytes (i32.and (local.get $rowBytes) (i32.const -16)))
    (memory.fill (local.get $dgamma) (i32.const 0) (local.get $rowBytes))
    (memory.fill (local.get $dbeta) (i32.const 0) (local.get $rowBytes))
    (block $rowsDone
      (loop $rowLoop
        (br_if $rowsDone (i32.eqz (local.get $rows)))
        (local.set $m (f32.load (local.get $mean)))
        (local.set $r (f32.load (local.get $rstd)))
        (local.set $mv (f32x4.splat (local.get $m)))
        (local.set $rv (f32x4.splat (local.get $r)))
        ;; pass 1: sums of g and g xhat; dgamma += dy xhat, dbeta += dy
        (local.set $accG (v128.const i32x4 0 0 0 0))
        (local.set $accGX (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $d1 (loop $l1
          (br_if $d1 (i32.ge_u (local.get $i) (local.get $vecBytes)))
          (local.set $xhat (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $i))) (local.get $mv)) (local.get $rv)))
          (local.set $dyv (v128.load (i32.add (local.get $dy) (local.get $i))))
          (local.set $g (f32x4.mul (local.get $dyv) (v128.load (i32.add (local.get $gamma) (local.get $i)))))
          (local.set $accG (f32x4.add (local.get $accG) (local.get $g)))
          (local.set $accGX (f32x4.relaxed_madd (local.get $g) (local.get $xhat) (local.get $accGX)))
          (v128.store (i32.add (local.get $dgamma) (local.get $i))
            (f32x4.relaxed_madd (local.get $dyv) (local.get $xhat) (v128.load (i32.add (local.get $dgamma) (local.get $i)))))
          (v128.store (i32.add (local.get $dbeta) (local.get $i))
            (f32x4.add (v128.load (i32.add (local.get $dbeta) (local.get $i))) (local.get $dyv)))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $l1)))
        (local.set $sg (call $sum4 (local.get $accG)))
        (local.set $sgx (call $sum4 (local.get $accGX)))
        (block $t1 (loop $s1
          (br_if $t1 (i32.ge_u (local.get $i) (local.get $rowBytes)))
          (local.set $sh (f32.mul (f32.sub (f32.load (i32.add (local.get $x) (local.get $i))) (local.get $m)) (local.get $r)))
          (local.set $sdy (f32.load (i32.add (local.get $dy) (local.get $i))))
          (local.set $sg (f32.add (local.get $sg) (f32.mul (local.get $sdy) (f32.load (i32.add (local.get $gamma) (local.get $i))))))
          (local.set $sgx (f32.add (local.get $sgx)
            (f32.mul (f32.mul (local.get $sdy) (f32.load (i32.add (local.get $gamma) (local.get $i)))) (local.get $sh))))
          (f32.store (i32.add (local.get $dgamma) (local.get $i))
            (f32.add (f32.load (i32.add (local.get $dgamma) (local.get $i))) (f32.mul (local.get $sdy) (local.get $sh))))
          (f32.store (i32.add (local.get $dbeta) (local.get $i))
            (f32.add (f32.load (i32.add (local.get $dbeta) (local.get $i))) (local.get $sdy)))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br $s1)))
        (local.set $a (f32.div (local.get $sg) (f32.convert_i32_u (local.get $d))))
        (local.set $b (f32.div (local.get $sgx) (f32.convert_i32_u (local.get $d))))
        (local.set $av (f32x4.splat (local.get $a)))
        (local.set $bv (f32x4.splat (local.get $b)))
        ;; pass 2: dx = rstd (g - a - xhat b)
        (local.set $i (i32.const 0))
        (block $d2 (loop $l2
          (br_if $d2 (i32.ge_u (local.get $i) (local.get $vecBytes)))
          (local.set $xhat (f32x4.mul (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $i))) (local.get $mv)) (local.get $rv)))
          (local.set $g (f32x4.mul (v128.load (i32.add (local.get $dy) (local.get $i))) (v128.load (i32.add (local.get $gamma) (local.get $i)))))
          (v128.store (i32.add (local.get $dx) (local.get $i))
            (f32x4.mul (local.get $rv)
              (f32x4.relaxed_nmadd (local.get $xhat) (local.get $bv) (f32x4.sub (local.get $g) (local.get $av)))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $l2)))
        (block $t2 (loop $s2
          (br_if $t2 (i32.ge_u (local.get $i) (local.get $rowBytes)))
          (local.set $sh (f32.mul (f32.sub (f32.load (i32.add (local.get $x) (local.get $i))) (local.get $m)) (local.get $r)))
          (f32.store (i32.add (local.get $dx) (local.get $i))
            (f32.mul (local.get $r)
              (f32.sub (f32.sub (f32.mul (f32.load (i32.add (local.get $dy) (local.get $i))) (f32.load (i32.add (local.get $gamma) (local.get $i))))
                                (local.get $a))
                       (f32.mul (local.get $sh) (local.get $b)))))
          (local.set $i (i32.add (local.get $i) (i32.const 4)))
          (br $s2)))
        (local.set $x (i32.add (local.get $x) (local.get $rowBytes)))
        (local.set $dy (i32.add (local.get $dy) (local.get $rowBytes)))
        (local.set $dx (i32.add (local.get $dx) (local.get $rowBytes)))
        (local.set $mean (i32.add (local.get $mean) (i32.const 4)))
        (local.set $rstd (i32.add (local.get $rstd) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $rowLoop))))
;; ---------------------------------------------------------------------------------------------
;; Adam's update of one variable (adam.ts), one pass instead of ~12 tfjs ops of a pass each: for
;; i < n, with g = scale grad[i] (1 - beta1 and 1 - beta2 come from the host, rounded once from
;; doubles as tfjs's composite rounds them, not subtracted in float32),
;;   m' = beta1 m + (1 - beta1) g,   v' = beta2 v + (1 - beta2) g^2,
;;   w' = w - stepSize m' / (sqrt(v' invCorrection2) + epsilon)
;; written to wOut, mOut and vOut (new tensors: tfjs tensors are immutable). The last n % 4 floats
;; take a scalar loop with the same arithmetic, each multiply-add written as a multiply and an
;; add.
  (func (export "adam") (param $w i32) (param $m i32) (param $v i32) (param $g i32)
        (param $wOut i32) (param $mOut i32) (param $vOut i32) (param $n i32)
        (param $beta1 f32) (param $beta2 f32) (param $oneMinusBeta1 f32) (param $oneMinusBeta2 f32)
        (param $stepSize f32) (param $invCorrection2 f32) (param $epsilon f32) (param $scale f32)
    (local $end i32) (local $vecEnd i32) (local $i i32)
    (local $b1 v128) (local $b2 v128) (local $c1 v128) (local $c2 v128) (local $lr v128)
    (local $ic2 v128) (local $eps v128) (local $sc v128)
    (local $gv v128) (local $mv v128) (local $vv v128)
    (local $gs f32) (local $ms f32) (local $vs f32)
    (local.set $b1 (f32x4.splat (local.get $beta1)))
    (local.set $b2 (f32x4.splat (local.get $beta2)))
    (local.set $c1 (f32x4.splat (local.get $oneMinusBeta1)))
    (local.set $c2 (f32x4.splat (local.get $oneMinusBeta2)))
    (local.set $lr (f32x4.splat (local.get $stepSize)))
    (local.set $ic2 (f32x4.splat (local.get $invCorrection2)))
    (local.set $eps (f32x4.splat (local.get $epsilon)))
    (local.set $sc (f32x4.splat (local.get $scale)))
    (local.set $end (i32.shl (local.get $n) (i32.const 2)))
    (local.set $vecEnd (i32.and (local.get $end) (i32.const -16)))
    (local.set $i (i32.const 0))
    (block $vectorsDone
      (loop $vectors
        (br_if $vectorsDone (i32.ge_u (local.get $i) (local.get $vecEnd)))
        (local.set $gv (f32x4.mul (v128.load (i32.add (local.get $g) (local.get $i))) (local.get $sc)))
        (local.set $mv (f32x4.relaxed_madd (v128.load (i32.add (local.get $m) (local.get $i))) (local.get $b1)
                                           (f32x4.mul (local.get $gv) (local.get $c1))))
        (local.set $vv (f32x4.relaxed_madd (v128.load (i32.add (local.get $v) (local.get $i))) (local.get $b2)
                                           (f32x4.mul (f32x4.mul (local.get $gv) (local.get $gv)) (local.get $c2))))
        (v128.store (i32.add (local.get $mOut) (local.get $i)) (local.get $mv))
        (v128.store (i32.add (local.get $vOut) (local.get $i)) (local.get $vv))
        (v128.store (i32.add (local.get $wOut) (local.get $i))
          (f32x4.sub (v128.load (i32.add (local.get $w) (local.get $i)))
            (f32x4.div (f32x4.mul (local.get $mv) (local.get $lr))
                       (f32x4.add (f32x4.sqrt (f32x4.mul (local.get $vv) (local.get $ic2))) (local.get $eps)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $vectors)))
    (block $tailDone
      (loop $tail
        (br_if $tailDone (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $gs (f32.mul (f32.load (i32.add (local.get $g) (local.get $i))) (local.get $scale)))
        (local.set $ms (f32.add (f32.mul (f32.load (i32.add (local.get $m) (local.get $i))) (local.get $beta1))
                                (f32.mul (local.get $gs) (local.get $oneMinusBeta1))))
        (local.set $vs (f32.add (f32.mul (f32.load (i32.add (local.get $v) (local.get $i))) (local.get $beta2))
                                (f32.mul (f32.mul (local.get $gs) (local.get $gs)) (local.get $oneMinusBeta2))))
        (f32.store (i32.add (local.get $mOut) (local.get $i)) (local.get $ms))
        (f32.store (i32.add (local.get $vOut) (local.get $i)) (local.get $vs))
        (f32.store (i32.add (local.get $wOut) (local.get $i))
          (f32.sub (f32.load (i32.add (local.get $w) (local.get $i)))
            (f32.div (f32.mul (local.get $ms) (local.get $stepSize))
                     (f32.add (f32.sqrt (f32.mul (local.get $vs) (local.get $invCorrection2))) (local.get $epsilon)))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $tail))))
)
