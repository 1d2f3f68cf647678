;; Batched float32 matrix product C[b] = op(A[b]) @ op(B[b]) with WebAssembly SIMD, for
;; tfjs-backend-wasm's heap (see wasmBatchMatMul.ts, which loads and registers it).
;;
;; The module has no memory of its own and no static data: it imports tfjs-wasm's memory
;; ("env" "memory"; scripts/buildKernels.ts also builds a copy that declares it shared, for the
;; threaded build) and works on tensors in place. The caller passes a scratch area from tfjs's
;; _malloc, sized by scratchBytes() in wasmBatchMatMul.ts.
;;
;; Method (the GotoBLAS / XNNPACK shape, one level): for each batch entry, pack A into panels of
;; 4 rows ([ceil(M/4)][K][4], zero-padded) and B into panels of 8 columns ([ceil(N/8)][K][8],
;; zero-padded); the packing reads any strides, so transposeA/transposeB cost nothing extra.
;; Then a 4x8 register tile per (row panel, column panel): per k, two 4-lane loads of B, four
;; broadcast loads of A, eight multiply-adds into eight accumulators (32 MACs). Edge tiles
;; compute on the zero padding and store only their valid part, through a 128-byte spill area.
;; The multiply-adds are relaxed SIMD's f32x4.relaxed_madd (a fused multiply-add on x86 with FMA3
;; and on ARM); scripts/buildKernels.ts also builds the plain SIMD fallback, each one expanded into
;; f32x4.mul then f32x4.add. Eight accumulators cover FMA's latency (4 cycles, 2 per cycle).
;; Deliberate simplifications: no K blocking (the weight gradients' K = B x T = 2016 makes a B panel
;; 64 KiB, read from L2), one thread.
(module
  (import "env" "memory" (memory 1))

  ;; dst[i/4][k][i%4] = A[i, k] for i < ceil4(M) (zero for i >= M); A[i, k] is at
  ;; a + 4 * (i * si + k * sk). With si = 1 (transposeA) a whole panel is one 4-lane copy per k.
  (func $packA (param $a i32) (param $dst i32) (param $M i32) (param $K i32) (param $si i32) (param $sk i32)
    (local $i i32) (local $k i32) (local $Mp i32) (local $d i32) (local $s i32) (local $step i32)
    (local.set $Mp (i32.and (i32.add (local.get $M) (i32.const 3)) (i32.const -4)))
    (local.set $step (i32.shl (local.get $sk) (i32.const 2)))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $Mp)))
        ;; d = dst + (i >> 2) * K * 16 + (i & 3) * 4
        (local.set $d (i32.add (local.get $dst)
          (i32.add (i32.mul (i32.shr_u (local.get $i) (i32.const 2)) (i32.shl (local.get $K) (i32.const 4)))
                   (i32.shl (i32.and (local.get $i) (i32.const 3)) (i32.const 2)))))
        (local.set $s (i32.add (local.get $a) (i32.shl (i32.mul (local.get $i) (local.get $si)) (i32.const 2))))
        (local.set $k (local.get $K))
        (if (i32.and (i32.and (i32.eq (local.get $si) (i32.const 1)) (i32.eqz (i32.and (local.get $i) (i32.const 3))))
                     (i32.le_u (i32.add (local.get $i) (i32.const 4)) (local.get $M)))
          (then
            ;; A full panel of adjacent rows: four lanes at once.
            (block $panelDone
              (br_if $panelDone (i32.eqz (local.get $k)))
              (loop $panel
                (v128.store (local.get $d) (v128.load (local.get $s)))
                (local.set $d (i32.add (local.get $d) (i32.const 16)))
                (local.set $s (i32.add (local.get $s) (local.get $step)))
                (br_if $panel (local.tee $k (i32.sub (local.get $k) (i32.const 1))))))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $rows)))
        (if (i32.lt_u (local.get $i) (local.get $M))
          (then
            (block $copyDone
              (br_if $copyDone (i32.eqz (local.get $k)))
              (loop $copy
                (f32.store (local.get $d) (f32.load (local.get $s)))
                (local.set $d (i32.add (local.get $d) (i32.const 16)))
                (local.set $s (i32.add (local.get $s) (local.get $step)))
                (br_if $copy (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))))
          (else
            (block $zeroDone
              (br_if $zeroDone (i32.eqz (local.get $k)))
              (loop $zero
                (f32.store (local.get $d) (f32.const 0))
                (local.set $d (i32.add (local.get $d) (i32.const 16)))
                (br_if $zero (local.tee $k (i32.sub (local.get $k) (i32.const 1))))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))

  ;; dst[j/8][k][j%8] = B[k, j] for j < ceil8(N) (zero for j >= N); B[k, j] is at
  ;; b + 4 * (k * sk + j * sj). With sj = 1 (no transposeB) a whole panel is two 4-lane copies per k.
  (func $packB (param $b i32) (param $dst i32) (param $N i32) (param $K i32) (param $sk i32) (param $sj i32)
    (local $j i32) (local $k i32) (local $Np i32) (local $d i32) (local $s i32) (local $step i32)
    (local.set $Np (i32.and (i32.add (local.get $N) (i32.const 7)) (i32.const -8)))
    (local.set $step (i32.shl (local.get $sk) (i32.const 2)))
    (block $colsDone
      (loop $cols
        (br_if $colsDone (i32.ge_u (local.get $j) (local.get $Np)))
        ;; d = dst + (j >> 3) * K * 32 + (j & 7) * 4
        (local.set $d (i32.add (local.get $dst)
          (i32.add (i32.mul (i32.shr_u (local.get $j) (i32.const 3)) (i32.shl (local.get $K) (i32.const 5)))
                   (i32.shl (i32.and (local.get $j) (i32.const 7)) (i32.const 2)))))
        (local.set $s (i32.add (local.get $b) (i32.shl (i32.mul (local.get $j) (local.get $sj)) (i32.const 2))))
        (local.set $k (local.get $K))
        (if (i32.and (i32.and (i32.eq (local.get $sj) (i32.const 1)) (i32.eqz (i32.and (local.get $j) (i32.const 7))))
                     (i32.le_u (i32.add (local.get $j) (i32.const 8)) (local.get $N)))
          (then
            ;; A full panel of adjacent columns: eight lanes at once.
            (block $panelDone
              (br_if $panelDone (i32.eqz (local.get $k)))
              (loop $panel
                (v128.store (local.get $d) (v128.load (local.get $s)))
                (v128.store offset=16 (local.get $d) (v128.load offset=16 (local.get $s)))
                (local.set $d (i32.add (local.get $d) (i32.const 32)))
                (local.set $s (i32.add (local.get $s) (local.get $step)))
                (br_if $panel (local.tee $k (i32.sub (local.get $k) (i32.const 1))))))
            (local.set $j (i32.add (local.get $j) (i32.const 8)))
            (br $cols)))
        (if (i32.lt_u (local.get $j) (local.get $N))
          (then
            (block $copyDone
              (br_if $copyDone (i32.eqz (local.get $k)))
              (loop $copy
                (f32.store (local.get $d) (f32.load (local.get $s)))
                (local.set $d (i32.add (local.get $d) (i32.const 32)))
                (local.set $s (i32.add (local.get $s) (local.get $step)))
                (br_if $copy (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))))
          (else
            (block $zeroDone
              (br_if $zeroDone (i32.eqz (local.get $k)))
              (loop $zero
                (f32.store (local.get $d) (f32.const 0))
                (local.set $d (i32.add (local.get $d) (i32.const 32)))
                (br_if $zero (local.tee $k (i32.sub (local.get $k) (i32.const 1))))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $cols))))

  ;; One 4x8 tile: C[0..rows, 0..cols] = packedA panel (pa, [K][4]) @ packedB panel (pb, [K][8]);
  ;; c is C's first element, ldc its row stride in bytes, spill 128 bytes of scratch.
  (func $tile (param $pa i32) (param $pb i32) (param $K i32) (param $c i32) (param $ldc i32)
              (param $rows i32) (param $cols i32) (param $spill i32)
    (local $k i32) (local $b0 v128) (local $b1 v128) (local $av v128)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128)
    (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)
    (local $r i32) (local $j i32) (local $src i32) (local $dst i32)
    (local.set $k (local.get $K))
    (block $kDone
      (br_if $kDone (i32.eqz (local.get $k)))
      (loop $kLoop
        (local.set $b0 (v128.load (local.get $pb)))
        (local.set $b1 (v128.load offset=16 (local.get $pb)))
        (local.set $av (v128.load32_splat (local.get $pa)))
        (local.set $c00 (f32x4.relaxed_madd (local.get $av) (local.get $b0) (local.get $c00)))
        (local.set $c01 (f32x4.relaxed_madd (local.get $av) (local.get $b1) (local.get $c01)))
        (local.set $av (v128.load32_splat offset=4 (local.get $pa)))
        (local.set $c10 (f32x4.relaxed_madd (local.get $av) (local.get $b0) (local.get $c10)))
        (local.set $c11 (f32x4.relaxed_madd (local.get $av) (local.get $b1) (local.get $c11)))
        (local.set $av (v128.load32_splat offset=8 (local.get $pa)))
        (local.set $c20 (f32x4.relaxed_madd (local.get $av) (local.get $b0) (local.get $c20)))
        (local.set $c21 (f32x4.relaxed_madd (local.get $av) (local.get $b1) (local.get $c21)))
        (local.set $av (v128.load32_splat offset=12 (local.get $pa)))
        (local.set $c30 (f32x4.relaxed_madd (local.get $av) (local.get $b0) (local.get $c30)))
        (local.set $c31 (f32x4.relaxed_madd (local.get $av) (local.get $b1) (local.get $c31)))
        (local.set $pa (i32.add (local.get $pa) (i32.const 16)))
        (local.set $pb (i32.add (local.get $pb) (i32.const 32)))
        (br_if $kLoop (local.tee $k (i32.sub (local.get $k) (i32.const 1))))))
    (if (i32.and (i32.eq (local.get $rows) (i32.const 4)) (i32.eq (local.get $cols) (i32.const 8)))
      (then
        (v128.store (local.get $c) (local.get $c00))
        (v128.store offset=16 (local.get $c) (local.get $c01))
        (local.set $c (i32.add (local.get $c) (local.get $ldc)))
        (v128.store (local.get $c) (local.get $c10))
        (v128.store offset=16 (local.get $c) (local.get $c11))
        (local.set $c (i32.add (local.get $c) (local.get $ldc)))
        (v128.store (local.get $c) (local.get $c20))
        (v128.store offset=16 (local.get $c) (local.get $c21))
        (local.set $c (i32.add (local.get $c) (local.get $ldc)))
        (v128.store (local.get $c) (local.get $c30))
        (v128.store offset=16 (local.get $c) (local.get $c31)))
      (else
        ;; Edge tile: spill the whole tile, then copy its valid rows x cols.
        (v128.store (local.get $spill) (local.get $c00))
        (v128.store offset=16 (local.get $spill) (local.get $c01))
        (v128.store offset=32 (local.get $spill) (local.get $c10))
        (v128.store offset=48 (local.get $spill) (local.get $c11))
        (v128.store offset=64 (local.get $spill) (local.get $c20))
        (v128.store offset=80 (local.get $spill) (local.get $c21))
        (v128.store offset=96 (local.get $spill) (local.get $c30))
        (v128.store offset=112 (local.get $spill) (local.get $c31))
        (block $rowsDone
          (loop $rowLoop
            (br_if $rowsDone (i32.ge_u (local.get $r) (local.get $rows)))
            (local.set $src (i32.add (local.get $spill) (i32.shl (local.get $r) (i32.const 5))))
            (local.set $dst (i32.add (local.get $c) (i32.mul (local.get $r) (local.get $ldc))))
            (local.set $j (i32.const 0))
            (block $colsDone
              (loop $colLoop
                (br_if $colsDone (i32.ge_u (local.get $j) (local.get $cols)))
                (f32.store (i32.add (local.get $dst) (i32.shl (local.get $j) (i32.const 2)))
                           (f32.load (i32.add (local.get $src) (i32.shl (local.get $j) (i32.const 2)))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $colLoop)))
            (local.set $r (i32.add (local.get $r) (i32.const 1)))
            (br $rowLoop))))))

  ;; C[b] (M x N, row-major, contiguous) = op(A[b]) @ op(B[b]) for b < batch, with op(A)[i, k] at
  ;; a + 4 * (b * M * K + i * asi + k * ask) and op(B)[k, j] at b + 4 * (b * K * N + k * bsk + j * bsj).
  ;; scratch: 128 + 4 * K * (min(ceil4(M), blockRows(K)) + ceil8(N)) bytes, blockRows(K) =
  ;; max(4, floor(32768 / K) rounded down to a multiple of 4) (wasmBatchMatMul.ts's scratchBytes).
  ;;
  ;; Order: B packed whole; then A a block of rows at a time (at most 128 KiB packed, so it stays in
  ;; L2 while every column panel passes over it; each column panel, K x 8, stays in L1 while the
  ;; block's row panels pass). Without the blocks a [2016, 512] A (4 MiB packed) streamed from L3
  ;; once per column panel: 16 against 24 GMAC/s.
  (func (export "batchMatMul")
        (param $a i32) (param $b i32) (param $c i32) (param $batch i32)
        (param $M i32) (param $N i32) (param $K i32)
        (param $asi i32) (param $ask i32) (param $bsk i32) (param $bsj i32) (param $scratch i32)
    (local $packedA i32) (local $packedB i32) (local $Np i32) (local $blockRows i32)
    (local $i0 i32) (local $blockM i32) (local $blockMp i32) (local $ablock i32) (local $cblock i32)
    (local $i i32) (local $j i32) (local $ldc i32) (local $rows i32) (local $cols i32)
    (local.set $Np (i32.and (i32.add (local.get $N) (i32.const 7)) (i32.const -8)))
    (local.set $blockRows (i32.and (i32.div_u (i32.const 32768) (local.get $K)) (i32.const -4)))
    (if (i32.lt_u (local.get $blockRows) (i32.const 4)) (then (local.set $blockRows (i32.const 4))))
    (local.set $packedB (i32.add (local.get $scratch) (i32.const 128)))
    (local.set $packedA (i32.add (local.get $packedB) (i32.shl (i32.mul (local.get $Np) (local.get $K)) (i32.const 2))))
    (local.set $ldc (i32.shl (local.get $N) (i32.const 2)))
    (block $batchDone
      (loop $batchLoop
        (br_if $batchDone (i32.eqz (local.get $batch)))
        (call $packB (local.get $b) (local.get $packedB) (local.get $N) (local.get $K) (local.get $bsk) (local.get $bsj))
        (local.set $i0 (i32.const 0))
        (block $blocksDone
          (loop $blockLoop
            (br_if $blocksDone (i32.ge_u (local.get $i0) (local.get $M)))
            (local.set $blockM (select (local.get $blockRows) (i32.sub (local.get $M) (local.get $i0))
                                       (i32.lt_u (local.get $blockRows) (i32.sub (local.get $M) (local.get $i0)))))
            (local.set $blockMp (i32.and (i32.add (local.get $blockM) (i32.const 3)) (i32.const -4)))
            (local.set $ablock (i32.add (local.get $a) (i32.shl (i32.mul (local.get $i0) (local.get $asi)) (i32.const 2))))
            (local.set $cblock (i32.add (local.get $c) (i32.mul (local.get $i0) (local.get $ldc))))
            (call $packA (local.get $ablock) (local.get $packedA) (local.get $blockM) (local.get $K) (local.get $asi) (local.get $ask))
            ;; Column panel outer: its K x 8 packed B stays in L1 while the block's row panels pass.
            (local.set $j (i32.const 0))
            (block $colsDone
              (loop $colLoop
                (br_if $colsDone (i32.ge_u (local.get $j) (local.get $Np)))
                (local.set $cols (select (i32.const 8) (i32.sub (local.get $N) (local.get $j))
                                         (i32.ge_s (i32.sub (local.get $N) (local.get $j)) (i32.const 8))))
                (local.set $i (i32.const 0))
                (block $rowsDone
                  (loop $rowLoop
                    (br_if $rowsDone (i32.ge_u (local.get $i) (local.get $blockMp)))
                    (local.set $rows (select (i32.const 4) (i32.sub (local.get $blockM) (local.get $i))
                                             (i32.ge_s (i32.sub (local.get $blockM) (local.get $i)) (i32.const 4))))
                    (call $tile
                      (i32.add (local.get $packedA) (i32.shl (i32.mul (local.get $i) (local.get $K)) (i32.const 2)))
                      (i32.add (local.get $packedB) (i32.shl (i32.mul (local.get $j) (local.get $K)) (i32.const 2)))
                      (local.get $K)
                      (i32.add (local.get $cblock) (i32.add (i32.mul (local.get $i) (local.get $ldc)) (i32.shl (local.get $j) (i32.const 2))))
                      (local.get $ldc) (local.get $rows) (local.get $cols) (local.get $scratch))
                    (local.set $i (i32.add (local.get $i) (i32.const 4)))
                    (br $rowLoop)))
                (local.set $j (i32.add (local.get $j) (i32.const 8)))
                (br $colLoop)))
            (local.set $i0 (i32.add (local.get $i0) (local.get $blockRows)))
            (br $blockLoop)))
        (local.set $a (i32.add (local.get $a) (i32.shl (i32.mul (local.get $M) (local.get $K)) (i32.const 2))))
        (local.set $b (i32.add (local.get $b) (i32.shl (i32.mul (local.get $K) (local.get $N)) (i32.const 2))))
        (local.set $c (i32.add (local.get $c) (i32.shl (i32.mul (local.get $M) (local.get $N)) (i32.const 2))))
        (local.set $batch (i32.sub (local.get $batch) (i32.const 1)))
        (br $batchLoop))))
)
