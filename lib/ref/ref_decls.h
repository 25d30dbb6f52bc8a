/*
 * Prototypes of the reference kernels for one element type. Included by
 * ref.h twice, with SVK_REF_TYPE / SVK_REF_NAME set; no include guard on
 * purpose. Shapes are given beside each pointer; all arrays are row-major.
 */

/* GEMM, strided-batched, BLAS semantics:
 *   C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] (+ bias, broadcast over rows)
 * op(A) is [M, K]: A is stored [M, lda] (trans_a = 0) or [K, lda] (trans_a = 1).
 * op(B) is [K, N]: B is stored [K, ldb] (trans_b = 0) or [N, ldb] (trans_b = 1).
 * C is [M, ldc]. Batch b starts at A + b*stride_a (likewise B, C); bias is
 * [N] or NULL and shared by all batches. When beta == 0, C is not read (so
 * NaN in C does not propagate), as in BLAS. Accumulates in SVK_REF_TYPE. */
void SVK_REF_NAME(gemm)(int trans_a, int trans_b, size_t M, size_t N, size_t K,
                        SVK_REF_TYPE alpha,
                        const SVK_REF_TYPE *A, size_t lda, size_t stride_a,
                        const SVK_REF_TYPE *B, size_t ldb, size_t stride_b,
                        SVK_REF_TYPE beta,
                        SVK_REF_TYPE *C, size_t ldc, size_t stride_c,
                        const SVK_REF_TYPE *bias, size_t batch);

/*
 * Conventions of the training kernels below. rows is the number of token
 * positions (B*T) a row-wise kernel runs over. Gradients of activations
 * (dx, dy, dz, dqkv, dlogits, ...) are WRITTEN (=); gradients of parameters
 * (dg, db, dbias, dwte, dwpe) are ACCUMULATED (+=), so one buffer can
 * collect the contributions of every row, layer use or micro-batch. Optional
 * outputs are marked "or NULL".
 */

/* LayerNorm over the last axis, biased variance:
 *   out = (x - mean) * rstd * g + b,  rstd = 1 / sqrt(var + eps).
 * x, out: [rows, width] (out may equal x); g, b: [width];
 * mean, rstd: [rows] or NULL (saved for the backward pass). */
void SVK_REF_NAME(layernorm_fwd)(size_t rows, size_t width, SVK_REF_TYPE eps,
                                 const SVK_REF_TYPE *x, const SVK_REF_TYPE *g,
                                 const SVK_REF_TYPE *b, SVK_REF_TYPE *out,
                                 SVK_REF_TYPE *mean, SVK_REF_TYPE *rstd);
/* Backward of layernorm_fwd from the saved mean and rstd.
 * dout, x, dx: [rows, width] (dx is written; it may equal dout or x);
 * mean, rstd: [rows]; g: [width]; dg, db: [width], accumulated. */
void SVK_REF_NAME(layernorm_bwd)(size_t rows, size_t width,
                                 const SVK_REF_TYPE *dout, const SVK_REF_TYPE *x,
                                 const SVK_REF_TYPE *mean, const SVK_REF_TYPE *rstd,
                                 const SVK_REF_TYPE *g, SVK_REF_TYPE *dx,
                                 SVK_REF_TYPE *dg, SVK_REF_TYPE *db);

/* RMSNorm over the last axis: out = x * rstd * g, rstd = 1 / sqrt(mean(x^2) + eps).
 * x, out: [rows, width] (out may equal x); g: [width]; rstd: [rows] or NULL. */
void SVK_REF_NAME(rmsnorm_fwd)(size_t rows, size_t width, SVK_REF_TYPE eps,
                               const SVK_REF_TYPE *x, const SVK_REF_TYPE *g,
                               SVK_REF_TYPE *out, SVK_REF_TYPE *rstd);
/* Backward of rmsnorm_fwd from the saved rstd.
 * dout, x, dx: [rows, width] (dx is written; it may equal dout or x);
 * rstd: [rows]; g: [width]; dg: [width], accumulated. */
void SVK_REF_NAME(rmsnorm_bwd)(size_t rows, size_t width,
                               const SVK_REF_TYPE *dout, const SVK_REF_TYPE *x,
                               const SVK_REF_TYPE *rstd, const SVK_REF_TYPE *g,
                               SVK_REF_TYPE *dx, SVK_REF_TYPE *dg);

/* SiameseNorm block input (docs/MODEL.md, "Where the norms go"), three norms P, Q, I of one kind:
 *   xn = P(x)               the new post-norm stream x
 *   h  = I(xn + Q(y))       the input of the shared sublayer
 * x, y, xn, h: [rows, C]; g: [3, C], the gains of P, Q, I in that order;
 * b: [3, C] biases likewise (layernorm; ignored, may be NULL, for rmsnorm);
 * mean, rstd: [3, rows], the statistics of P, Q, I (mean is not written for
 * rmsnorm and may then be NULL). */
void SVK_REF_NAME(siamese_norm_fwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                                    SVK_REF_TYPE eps,
                                    const SVK_REF_TYPE *x, const SVK_REF_TYPE *y,
                                    const SVK_REF_TYPE *g, const SVK_REF_TYPE *b,
                                    SVK_REF_TYPE *xn, SVK_REF_TYPE *h,
                                    SVK_REF_TYPE *mean, SVK_REF_TYPE *rstd);
/* Backward of siamese_norm_fwd. It needs only what the forward pass read and
 * saved (x, y, mean, rstd, g, b), not xn or h: in the model the residual
 * update overwrites xn in place.
 * dh: [rows, C], gradient of h; dxn: [rows, C] or NULL (= 0), gradient
 * arriving on xn from its later use; dy_in: [rows, C] or NULL (= 0), gradient
 * arriving on y from its later use; dx: [rows, C], written;
 * dy: [rows, C], written with dy_in + the gradient through Q (dy may equal dy_in);
 * dg, db: [3, C] (P, Q, I), accumulated (db unused for rmsnorm, may be NULL);
 * work: [2, rows, C] scratch, clobbered. Other shapes as in the forward. */
void SVK_REF_NAME(siamese_norm_bwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                                    SVK_REF_TYPE eps, const SVK_REF_TYPE *dh,
                                    const SVK_REF_TYPE *dxn, const SVK_REF_TYPE *dy_in,
                                    const SVK_REF_TYPE *x, const SVK_REF_TYPE *y,
                                    const SVK_REF_TYPE *mean, const SVK_REF_TYPE *rstd,
                                    const SVK_REF_TYPE *g, const SVK_REF_TYPE *b,
                                    SVK_REF_TYPE *dx, SVK_REF_TYPE *dy,
                                    SVK_REF_TYPE *dg, SVK_REF_TYPE *db,
                                    SVK_REF_TYPE *work);

/* SiameseNorm model output: out = N_out(N_x(x) + N_y(y)), three norms of one kind.
 * x, y, out: [rows, C]; g, b: [3, C], the norms N_x, N_y, N_out in that order
 * (b ignored, may be NULL, for rmsnorm); mean, rstd: [3, rows] likewise
 * (mean may be NULL for rmsnorm); work: [rows, C] scratch, clobbered. */
void SVK_REF_NAME(siamese_out_fwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                                   SVK_REF_TYPE eps,
                                   const SVK_REF_TYPE *x, const SVK_REF_TYPE *y,
                                   const SVK_REF_TYPE *g, const SVK_REF_TYPE *b,
                                   SVK_REF_TYPE *out, SVK_REF_TYPE *mean,
                                   SVK_REF_TYPE *rstd, SVK_REF_TYPE *work);
/* Backward of siamese_out_fwd. dout, dx, dy: [rows, C] (dx, dy written);
 * dg, db: [3, C] (N_x, N_y, N_out), accumulated (db may be NULL for rmsnorm);
 * work: [2, rows, C] scratch, clobbered. Other shapes as in the forward. */
void SVK_REF_NAME(siamese_out_bwd)(enum svk_ref_norm kind, size_t rows, size_t C,
                                   SVK_REF_TYPE eps, const SVK_REF_TYPE *dout,
                                   const SVK_REF_TYPE *x, const SVK_REF_TYPE *y,
                                   const SVK_REF_TYPE *mean, const SVK_REF_TYPE *rstd,
                                   const SVK_REF_TYPE *g, const SVK_REF_TYPE *b,
                                   SVK_REF_TYPE *dx, SVK_REF_TYPE *dy,
                                   SVK_REF_TYPE *dg, SVK_REF_TYPE *db,
                                   SVK_REF_TYPE *work);

/* SiameseNorm dual residual update, in place: x += z / c; y += z.
 * x, y, z: [n]; c: the layer's scale, sqrt(2 (l + 1)) in the model. */
void SVK_REF_NAME(residual_fwd)(size_t n, SVK_REF_TYPE c, SVK_REF_TYPE *x,
                                SVK_REF_TYPE *y, const SVK_REF_TYPE *z);
/* Backward of residual_fwd: dz = dx / c + dy, written. The gradients of the
 * old x and y equal those of the new ones (identity), so dx and dy are
 * passed on unchanged by the caller. dx, dy, dz: [n]. */
void SVK_REF_NAME(residual_bwd)(size_t n, SVK_REF_TYPE c, const SVK_REF_TYPE *dx,
                                const SVK_REF_TYPE *dy, SVK_REF_TYPE *dz);

/* The benchmark's multiply-add kernel (shaders/fma_peak.comp): invocation
 * i runs `chains` recurrences acc = acc * a + b, chain c from
 * (i % 64) + c, `steps` times each, and out[i] is their sum, added as the
 * shader does (by vec4 lane c % 4, then the lanes pairwise). out: [n]. */
void SVK_REF_NAME(fma_peak)(size_t n, size_t chains, size_t steps, SVK_REF_TYPE a,
                            SVK_REF_TYPE b, SVK_REF_TYPE *out);

/* Causal multi-head self-attention, without RoPE (apply rope_fwd to qkv first).
 * qkv: [B, T, 3C], q = cols 0..C, k = C..2C, v = 2C..3C, head j uses cols
 * j*D..(j+1)*D of each, D = C / H; out: [B, T, C], heads concatenated;
 * att: [B, H, T, T], softmax(q k^T / sqrt(D)) over keys <= query, saved for
 * the backward pass; entries above the diagonal are written 0. */
void SVK_REF_NAME(attention_fwd)(size_t B, size_t T, size_t C, size_t H,
                                 const SVK_REF_TYPE *qkv, SVK_REF_TYPE *out,
                                 SVK_REF_TYPE *att);
/* What the flash forward saves instead of att: stats [B, H, T, 2], per
 * query row t the largest scaled score m = max_{j <= t} s_j (s as in
 * attention_fwd) and the softmax's denominator l = sum_{j <= t} exp(s_j - m),
 * so that P_j = exp(s_j - m) / l. (Two numbers rather than log l + m: with
 * scores near 1e4 one float of their sum would lose ~1e-3 of every P.) */
void SVK_REF_NAME(attention_stats)(size_t B, size_t T, size_t C, size_t H,
                                   const SVK_REF_TYPE *qkv, SVK_REF_TYPE *stats);
/* Backward of attention_fwd. dout: [B, T, C]; qkv: [B, T, 3C] (as fed to the
 * forward pass, i.e. after RoPE); att: [B, H, T, T] from the forward pass;
 * dqkv: [B, T, 3C], written. */
void SVK_REF_NAME(attention_bwd)(size_t B, size_t T, size_t C, size_t H,
                                 const SVK_REF_TYPE *dout, const SVK_REF_TYPE *qkv,
                                 const SVK_REF_TYPE *att, SVK_REF_TYPE *dqkv);

/* RoPE, in place on the q and k parts of qkv: [B, T, 3C] (v is untouched).
 * In each head (width D = C / H, even), at position t, for i < D/2 the pair
 * (a, b) = (col i, col i + D/2) becomes (a cos - b sin, a sin + b cos),
 * angle t * theta^(-2i/D). */
void SVK_REF_NAME(rope_fwd)(size_t B, size_t T, size_t C, size_t H,
                            SVK_REF_TYPE theta, SVK_REF_TYPE *qkv);
/* rope_fwd of one row at position pos: row [3C], in place. */
void SVK_REF_NAME(rope_fwd_at)(size_t C, size_t H, size_t pos, SVK_REF_TYPE theta, SVK_REF_TYPE *row);
/* Backward of rope_fwd, in place on dqkv: [B, T, 3C]: the rotation is
 * orthogonal, so the gradient is rotated by the negative angle. */
void SVK_REF_NAME(rope_bwd)(size_t B, size_t T, size_t C, size_t H,
                            SVK_REF_TYPE theta, SVK_REF_TYPE *dqkv);

/* Generation with a key-value cache (lib/ref/decode.c). embedding_decode:
 * out [C] = wte [V, C] row token + wpe [ctx, C] row pos (wpe NULL: none);
 * a token outside [0, V) or pos >= ctx gives zeros. attention_decode: one
 * token's causal attention at position pos < ctx: qkv [3C] (before RoPE)
 * is RoPE'd at pos where theta > 0 (0: no RoPE) and stored as row pos of
 * cache [ctx, 3C], whose rows 0..pos-1 hold the earlier tokens' (keys
 * rotated); out [C] = softmax(q k_j / sqrt(D), j <= pos) v_j per head, in
 * the arithmetic of attention_fwd's row pos. pos >= ctx writes nothing. */
void SVK_REF_NAME(embedding_decode)(size_t C, size_t V, size_t ctx, int32_t token, int32_t pos,
                                    const SVK_REF_TYPE *wte, const SVK_REF_TYPE *wpe, SVK_REF_TYPE *out);
void SVK_REF_NAME(attention_decode)(size_t C, size_t H, size_t ctx, int32_t pos, SVK_REF_TYPE theta,
                                    const SVK_REF_TYPE *qkv, SVK_REF_TYPE *cache, SVK_REF_TYPE *out);

/* GELU, tanh form: out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 * x, out: [n] (any shape, e.g. [rows, F]); out may equal x. */
void SVK_REF_NAME(gelu_fwd)(size_t n, const SVK_REF_TYPE *x, SVK_REF_TYPE *out);
/* Backward of gelu_fwd: dx = dout * gelu'(x). x, dout, dx: [n]; dx, written,
 * may equal dout. */
void SVK_REF_NAME(gelu_bwd)(size_t n, const SVK_REF_TYPE *x,
                            const SVK_REF_TYPE *dout, SVK_REF_TYPE *dx);

/* SwiGLU gate: out = silu(gate) * up, silu(u) = u / (1 + exp(-u)).
 * gate, up, out: [n] (e.g. [rows, F]), gate and up as separate arrays, not
 * one interleaved [rows, 2F] tensor. */
void SVK_REF_NAME(swiglu_fwd)(size_t n, const SVK_REF_TYPE *gate,
                              const SVK_REF_TYPE *up, SVK_REF_TYPE *out);
/* Backward of swiglu_fwd: dgate = dout * up * silu'(gate), dup = dout * silu(gate),
 * both written. gate, up, dout, dgate, dup: [n]. */
void SVK_REF_NAME(swiglu_bwd)(size_t n, const SVK_REF_TYPE *gate,
                              const SVK_REF_TYPE *up, const SVK_REF_TYPE *dout,
                              SVK_REF_TYPE *dgate, SVK_REF_TYPE *dup);

/* Bias add, in place: out[r, j] += bias[j]. bias: [N]; out: [rows, N]. */
void SVK_REF_NAME(bias_fwd)(size_t rows, size_t N, const SVK_REF_TYPE *bias,
                            SVK_REF_TYPE *out);
/* Bias gradient: dbias[j] += sum over r of dout[r, j], summed in row order.
 * dout: [rows, N]; dbias: [N], accumulated. */
void SVK_REF_NAME(bias_bwd)(size_t rows, size_t N, const SVK_REF_TYPE *dout,
                            SVK_REF_TYPE *dbias);

/* Token + position embedding: out[b, t] = wte[tokens[b, t]] + wpe[t].
 * tokens: [B, T]; wte: [V, C]; wpe: [>= T, C] or NULL (pos = rope: no
 * position table); out: [B, T, C]. A token outside [0, V) is invalid input:
 * its row of out is written 0 and it is counted. Returns that count. */
size_t SVK_REF_NAME(embedding_fwd)(size_t B, size_t T, size_t C, size_t V,
                                   const int32_t *tokens, const SVK_REF_TYPE *wte,
                                   const SVK_REF_TYPE *wpe, SVK_REF_TYPE *out);
/* Backward of embedding_fwd: dwte[tokens[b, t]] += dout[b, t] and
 * dwpe[t] += dout[b, t], scatter-added in the fixed order b, then t, so the
 * result is the same on every run. dout: [B, T, C]; dwte: [V, C], accumulated;
 * dwpe: [>= T, C] or NULL, accumulated. A position with an invalid token
 * contributes nothing (its forward row is the constant 0); returns their count. */
size_t SVK_REF_NAME(embedding_bwd)(size_t B, size_t T, size_t C, size_t V,
                                   const int32_t *tokens, const SVK_REF_TYPE *dout,
                                   SVK_REF_TYPE *dwte, SVK_REF_TYPE *dwpe);

/* Fused softmax, cross-entropy loss and its gradient over the vocabulary.
 * A row is counted when 0 <= targets[r] < V; -1 means ignored; any other
 * value is invalid input, treated as ignored and counted in *invalid.
 * Returns loss = mean over counted rows of -log softmax(logits[r])[targets[r]],
 * or 0 when no row is counted.
 * logits: [rows, V]; targets: [rows];
 * dlogits: [rows, V] or NULL, written: (softmax - onehot) / count for
 * counted rows, 0 for the others (dlogits may equal logits);
 * losses: [rows] or NULL, written: each counted row's unscaled loss, 0 for
 * the others; invalid: NULL or where to store the number of invalid targets. */
SVK_REF_TYPE SVK_REF_NAME(cross_entropy)(size_t rows, size_t V,
                                         const SVK_REF_TYPE *logits,
                                         const int32_t *targets,
                                         SVK_REF_TYPE *dlogits, SVK_REF_TYPE *losses,
                                         size_t *invalid);

/* cross_entropy in two parts, for a batch taken in pieces (gradient
 * accumulation): the count of counted targets (and in *invalid, unless
 * NULL, of invalid ones) among rows; then each piece's rows, dlogits
 * divided by the whole batch's count, returning the sum, in double, of their
 * losses. */
size_t SVK_REF_NAME(cross_entropy_count)(size_t rows, size_t V, const int32_t *targets, size_t *invalid);
double SVK_REF_NAME(cross_entropy_rows)(size_t rows, size_t V, const SVK_REF_TYPE *logits,
                                        const int32_t *targets, size_t count, SVK_REF_TYPE *dlogits,
                                        SVK_REF_TYPE *losses);

/* Global L2 norm of a list of arrays: sqrt(sum over all i, k of arrays[i][k]^2).
 * arrays: [count], arrays[i]: [sizes[i]]; sizes: [count]. */
SVK_REF_TYPE SVK_REF_NAME(global_norm)(size_t count, const SVK_REF_TYPE *const *arrays,
                                       const size_t *sizes);
/* Clip scale of a global norm: min(1, max_norm / (norm + 1e-6)); max_norm == 0
 * turns clipping off (returns 1). A NaN norm gives NaN. */
SVK_REF_TYPE SVK_REF_NAME(clip_scale)(SVK_REF_TYPE norm, SVK_REF_TYPE max_norm);
/* Multiplies every element of a list of arrays by scale, in place.
 * arrays: [count], arrays[i]: [sizes[i]]; sizes: [count]. */
void SVK_REF_NAME(clip_apply)(size_t count, SVK_REF_TYPE *const *arrays,
                              const size_t *sizes, SVK_REF_TYPE scale);

/* Counts the NaNs and infinities among x[r * ld + c], r < rows, c < cols,
 * finds the first (in that order) and the largest finite magnitude.
 * x: [rows, ld]; ld >= cols. */
void SVK_REF_NAME(finite_check)(size_t rows, size_t cols, size_t ld, const SVK_REF_TYPE *x,
                                svk_ref_finite *out);

/* One AdamW update of one tensor, PyTorch semantics (docs/MODEL.md, "Optimiser"):
 *   g' = grad_scale * g
 *   p -= lr * weight_decay * p                 only when decay != 0 (2-D weights)
 *   m = beta1 m + (1 - beta1) g';  v = beta2 v + (1 - beta2) g'^2
 *   p -= lr * (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + eps)
 * t: the update's number, counting from 1. grad_scale: the clip scale (1 when
 * not clipping). p, m, v: [n], updated in place; g: [n]. */
void SVK_REF_NAME(adamw)(size_t n, SVK_REF_TYPE *p, const SVK_REF_TYPE *g,
                         SVK_REF_TYPE *m, SVK_REF_TYPE *v, SVK_REF_TYPE grad_scale,
                         SVK_REF_TYPE lr, SVK_REF_TYPE beta1, SVK_REF_TYPE beta2,
                         SVK_REF_TYPE eps, SVK_REF_TYPE weight_decay, int decay,
                         uint64_t t);

/* Learning rate of update step = 0 .. total-1 (docs/MODEL.md, "Optimiser"): linear
 * warm-up to peak over the first warmup steps, then cosine decay to
 * 0.1 * peak at step total-1. */
SVK_REF_TYPE SVK_REF_NAME(lr_schedule)(uint64_t step, uint64_t total,
                                       uint64_t warmup, SVK_REF_TYPE peak);

/* Warm-up-stable-decay (docs/MODEL.md, "Optimiser"): the same warm-up, then
 * peak until the last D = floor(decay_frac * total + 0.5) updates, which
 * decay linearly to 0.1 * peak at step total-1. decay_frac in [0, 1]. */
SVK_REF_TYPE SVK_REF_NAME(lr_wsd)(uint64_t step, uint64_t total, uint64_t warmup,
                                  double decay_frac, SVK_REF_TYPE peak);

/* Dynamic loss scaling (docs/MODEL.md, "Precision"): the scaler's state
 * after a step, in place. state [3] = the scale S, 1/S, and the steps in a
 * row without overflow. An overflow (the unscaled gradient norm's square
 * not finite) halves S unless S is 2^-24 already, and restarts the count;
 * the interval-th good step in a row doubles S unless S is 2^24 already,
 * and restarts it. */
void SVK_REF_NAME(loss_scale_update)(SVK_REF_TYPE *state, int overflow, uint32_t interval);

/* Keeps x [n] in 16 bits (docs/MODEL.md, "Precision"): rounds each
 * element to the nearest fp16 or bf16 value (fmt: SVK_FMT_FP16 or
 * SVK_FMT_BF16), in place, and writes its code to codes [n] unless NULL. */
void SVK_REF_NAME(pack16)(size_t n, uint32_t fmt, SVK_REF_TYPE *x, uint16_t *codes);
/* The codes pack16 writes, x left as it is. */
void SVK_REF_NAME(pack16_codes)(size_t n, uint32_t fmt, const SVK_REF_TYPE *x, uint16_t *codes);
/* x [n] = the values of codes [n] in format fmt. */
void SVK_REF_NAME(unpack16)(size_t n, uint32_t fmt, const uint16_t *codes, SVK_REF_TYPE *x);
