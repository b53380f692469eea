/* optable.h — every op onnx2c implements, one row an op: the one table of ops.
 *
 * This file is an X-macro list, read by compiler/ops/ops.c twice: once to declare each row's
 * infer and emit functions (defined in the family's file, compiler/ops/FAMILY.c), once to build
 * the OpDef table that ops_find searches.  A row states the op's facts, checked by infer_graph
 * before the op's infer runs:
 *
 *   OP(NAME, DOMAIN, FAMILY, SINCE, IN_MIN, IN_MAX, INFER, EMIT, VARIANT)
 *   OP_KNOWN(NAME, DOMAIN, FAMILY, SINCE, IN_MIN, IN_MAX, INFER, VARIANT)
 *
 *   NAME      the ONNX op_type
 *   DOMAIN    "" for ai.onnx, else the domain
 *   FAMILY    the file that implements it (and --list-ops' family column)
 *   SINCE     the first opset of its domain that has the op (ai.onnx: from the ONNX schemas);
 *             a model that imports an older opset is refused
 *   IN_MIN    inputs: the first IN_MIN must be present; at most IN_MAX (-1: any number) may be,
 *   IN_MAX    trailing empty names not counted.  The union over every opset onnx2c implements;
 *             an infer refines it where it changed between opsets
 *   INFER     infer_INFER(Compiler *, Node *): reads and checks attributes and inputs, sets the
 *             outputs' shapes and types (and their values when known)
 *   EMIT      emit_EMIT(Compiler *, Emit *, Node *): writes the C of one node
 *   VARIANT   an OPV_ constant (compiler/onnx2c.h) telling apart the ops that share INFER and EMIT, or 0
 *
 * OP_KNOWN rows have no emit: the op is supported only when its result is known at compile
 * time (Shape, Size, Constant).  Adding an op is one row here and its functions in its family.
 */

/* ---- conv (compiler/ops/conv.c) */
OP(Conv, "", conv, 1, 2, 3, conv, conv, 0)
OP(ConvTranspose, "", conv, 1, 2, 3, conv_transpose, conv_transpose, 0)
/* ---- control flow: subgraphs compiled in place (compiler/ops/control.c) */
OP(If, "", control, 1, 1, 1, if, if, 0)
OP(Loop, "", control, 1, 0, -1, loop, loop, 0)
OP(Scan, "", control, 8, 0, -1, scan, scan, 0)
OP(SequenceMap, "", control, 17, 1, -1, seqmap, seqmap, 0)
/* ---- sequences of tensors inside a graph (compiler/ops/sequence.c) */
OP(SequenceEmpty, "", sequence, 11, 0, 0, seq_empty, seq_empty, 0)
OP(SequenceConstruct, "", sequence, 11, 1, -1, seq_construct, seq_construct, 0)
OP(SequenceInsert, "", sequence, 11, 2, 3, seq_insert, seq_insert, 0)
OP(SequenceErase, "", sequence, 11, 1, 2, seq_erase, seq_erase, 0)
OP(SequenceAt, "", sequence, 11, 2, 2, seq_at, seq_at, 0)
OP(SequenceLength, "", sequence, 11, 1, 1, seq_length, seq_length, 0)
OP(ConcatFromSequence, "", sequence, 11, 1, 1, concat_from_seq, concat_from_seq, 0)
OP(SplitToSequence, "", sequence, 11, 1, 2, split_to_seq, split_to_seq, 0)
OP(Optional, "", sequence, 15, 0, 1, optional, optional, 0)
OP(OptionalHasElement, "", sequence, 15, 1, 1, optional_has, optional, 0)
OP(OptionalGetElement, "", sequence, 15, 1, 1, optional_get, optional, 0)
/* ---- select: sizes decided by data (compiler/ops/select.c) */
OP(NonZero, "", select, 9, 1, 1, nonzero, nonzero, 0)
OP(Compress, "", select, 9, 2, 2, compress, compress, 0)
OP(Unique, "", select, 11, 1, 1, unique, unique, 0)
OP(NonMaxSuppression, "", select, 10, 2, 5, nms, nms, 0)
/* ---- elementwise (compiler/ops/elementwise.c) */
OP(Abs, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Neg, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Relu, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Sign, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Not, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Ceil, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Floor, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Round, "", elementwise, 11, 1, 1, unary, unary, 0)
OP(Sqrt, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Exp, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Log, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Sin, "", elementwise, 7, 1, 1, unary, unary, 0)
OP(Cos, "", elementwise, 7, 1, 1, unary, unary, 0)
OP(Tan, "", elementwise, 7, 1, 1, unary, unary, 0)
OP(Asin, "", elementwise, 7, 1, 1, unary, unary, 0)
OP(Acos, "", elementwise, 7, 1, 1, unary, unary, 0)
OP(Atan, "", elementwise, 7, 1, 1, unary, unary, 0)
OP(Sinh, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Cosh, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Tanh, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Asinh, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Acosh, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Atanh, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Erf, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Reciprocal, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Sigmoid, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Softplus, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Softsign, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Elu, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(Celu, "", elementwise, 12, 1, 1, unary, unary, 0)
OP(Selu, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(LeakyRelu, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(ThresholdedRelu, "", elementwise, 10, 1, 1, unary, unary, 0)
OP(HardSigmoid, "", elementwise, 1, 1, 1, unary, unary, 0)
OP(HardSwish, "", elementwise, 14, 1, 1, unary, unary, 0)
OP(Shrink, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(IsNaN, "", elementwise, 9, 1, 1, unary, unary, 0)
OP(Add, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Sub, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Mul, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Div, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Mod, "", elementwise, 10, 2, 2, binary, binary, 0)
OP(BitShift, "", elementwise, 11, 2, 2, binary, binary, 0)
OP(Equal, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Less, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(LessOrEqual, "", elementwise, 12, 2, 2, binary, binary, 0)
OP(Greater, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(GreaterOrEqual, "", elementwise, 12, 2, 2, binary, binary, 0)
OP(And, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Or, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Xor, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(PRelu, "", elementwise, 1, 2, 2, binary, binary, 0)
OP(Max, "", elementwise, 1, 1, -1, binary, binary, 0)
OP(Min, "", elementwise, 1, 1, -1, binary, binary, 0)
OP(Sum, "", elementwise, 1, 1, -1, binary, binary, 0)
OP(Mean, "", elementwise, 1, 1, -1, binary, binary, 0)
OP(IsInf, "", elementwise, 10, 1, 1, isinf, unary, 0)
OP(Pow, "", elementwise, 1, 2, 2, pow, pow, 0)
OP(Clip, "", elementwise, 1, 1, 3, clip, clip, 0)
OP(Where, "", elementwise, 9, 3, 3, where, where, 0)
OP(Cast, "", elementwise, 1, 1, 1, cast, cast, 0)
OP(CastLike, "", elementwise, 15, 2, 2, cast, cast, OPV_CASTLIKE)
/* ---- layout (compiler/ops/layout.c) */
OP(Transpose, "", layout, 1, 1, 1, transpose, pieces, 0)
OP(Concat, "", layout, 1, 1, -1, concat, pieces, 0)
OP(Split, "", layout, 1, 1, 2, split, split, 0)
OP(Slice, "", layout, 1, 1, 5, slice, slice, 0)
OP(DepthToSpace, "", layout, 1, 1, 1, depth_space, pieces, OPV_D2S)
OP(SpaceToDepth, "", layout, 1, 1, 1, depth_space, pieces, OPV_S2D)
OP(Gather, "", layout, 1, 2, 2, gather, gather, 0)
OP(GatherElements, "", layout, 11, 2, 2, gather_elements, gather_elements, 0)
OP(Pad, "", layout, 1, 1, 4, pad, pad, 0)
OP(ReverseSequence, "", layout, 10, 2, 2, revseq, revseq, 0)
/* ---- linalg (compiler/ops/linalg.c) */
OP(Det, "", linalg, 11, 1, 1, det, det, 0)
/* ---- loss (compiler/ops/loss.c) */
OP(NegativeLogLikelihoodLoss, "", loss, 12, 2, 3, nll, nll, 0)
OP(SoftmaxCrossEntropyLoss, "", loss, 12, 2, 3, sce, sce, 0)
/* ---- matmul (compiler/ops/matmul.c) */
OP(MatMul, "", matmul, 1, 2, 2, matmul, matmul, 0)
OP(Gemm, "", matmul, 1, 2, 3, gemm, gemm, 0)
/* ---- misc (compiler/ops/misc.c) */
OP(Trilu, "", misc, 14, 1, 2, trilu, trilu, 0)
OP(CumSum, "", misc, 11, 2, 2, cumsum, cumsum, 0)
OP(OneHot, "", misc, 9, 3, 3, onehot, onehot, 0)
OP(ScatterElements, "", misc, 11, 3, 3, scatter_elements, scatter_elements, 0)
OP(Scatter, "", misc, 9, 3, 3, scatter_elements, scatter_elements, 0)
OP(ScatterND, "", misc, 11, 3, 3, scatternd, scatternd, 0)
OP(GatherND, "", misc, 11, 2, 2, gathernd, gathernd, 0)
OP(TopK, "", misc, 1, 1, 2, topk, topk, 0)
OP(EyeLike, "", misc, 9, 1, 1, eyelike, eyelike, 0)
OP(Einsum, "", misc, 12, 1, -1, einsum, einsum, 0)
OP(MeanVarianceNormalization, "", misc, 9, 1, 1, mvn, mvn, 0)
/* ---- norm (compiler/ops/norm.c) */
OP(BatchNormalization, "", norm, 1, 5, 5, batchnorm, batchnorm, 0)
OP(InstanceNormalization, "", norm, 1, 3, 3, instancenorm, instancenorm, 0)
OP(LayerNormalization, "", norm, 17, 2, 3, layernorm, layernorm, 0)
OP(LRN, "", norm, 1, 1, 1, lrn, lrn, 0)
OP(LpNormalization, "", norm, 1, 1, 1, lpnorm, lpnorm, 0)
/* ---- pool (compiler/ops/pool.c) */
OP(MaxPool, "", pool, 1, 1, 1, pool, pool, OPV_POOL_MAX)
OP(AveragePool, "", pool, 1, 1, 1, pool, pool, OPV_POOL_AVG)
OP(LpPool, "", pool, 1, 1, 1, pool, pool, OPV_POOL_LP)
OP(GlobalMaxPool, "", pool, 1, 1, 1, global_pool, pool, OPV_GPOOL_MAX)
OP(GlobalAveragePool, "", pool, 1, 1, 1, global_pool, pool, OPV_GPOOL_AVG)
OP(GlobalLpPool, "", pool, 1, 1, 1, global_pool, pool, OPV_GPOOL_LP)
/* ---- quant (compiler/ops/quant.c) */
OP(QuantizeLinear, "", quant, 10, 2, 3, quantize, quantize, 0)
OP(DequantizeLinear, "", quant, 10, 2, 3, dequantize, dequantize, 0)
OP(DynamicQuantizeLinear, "", quant, 11, 1, 1, dynquant, dynquant, 0)
OP(MatMulInteger, "", quant, 10, 2, 4, matmulinteger, qmm, 0)
OP(QLinearMatMul, "", quant, 10, 8, 8, qlinearmatmul, qmm, 0)
OP(ConvInteger, "", quant, 10, 2, 4, convinteger, qconv, 0)
OP(QLinearConv, "", quant, 10, 8, 9, qlinearconv, qconv, 0)
/* ---- quant_ms (compiler/ops/quant_ms.c) */
OP(QLinearAdd, "com.microsoft", quant_ms, 1, 2, 8, qbinary, qbinary, OPV_QADD)
OP(QLinearMul, "com.microsoft", quant_ms, 1, 2, 8, qbinary, qbinary, OPV_QMUL)
OP(QLinearSigmoid, "com.microsoft", quant_ms, 1, 2, 5, qunary, qunary, OPV_QSIGMOID)
OP(QLinearLeakyRelu, "com.microsoft", quant_ms, 1, 2, 5, qunary, qunary, OPV_QLEAKYRELU)
OP(QLinearConcat, "com.microsoft", quant_ms, 1, 2, -1, qconcat, qconcat, 0)
OP(QLinearAveragePool, "com.microsoft", quant_ms, 1, 2, 5, qpool, qpool, OPV_QPOOL)
OP(QLinearGlobalAveragePool, "com.microsoft", quant_ms, 1, 2, 5, qpool, qpool, OPV_QGLOBALPOOL)
OP(QLinearHardSwish, "ai.onnx2c", quant_ms, 1, 2, 5, qunary, qunary, OPV_QHARDSWISH)
/* ---- reduce (compiler/ops/reduce.c) */
OP(ReduceSum, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceSumSquare, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceMean, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceProd, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceMax, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceMin, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceL1, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceL2, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceLogSum, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ReduceLogSumExp, "", reduce, 1, 1, 2, reduce, reduce, 0)
OP(ArgMax, "", reduce, 1, 1, 1, arg, arg, OPV_ARGMAX)
OP(ArgMin, "", reduce, 1, 1, 1, arg, arg, OPV_ARGMIN)
/* ---- resize (compiler/ops/resize.c) */
OP(Resize, "", resize, 10, 1, 4, resize, resize, OPV_RESIZE)
OP(Upsample, "", resize, 1, 1, 2, resize, resize, OPV_UPSAMPLE)
/* ---- rnn (compiler/ops/rnn.c) */
OP(LSTM, "", rnn, 1, 3, 8, rnn, rnn, OPV_LSTM)
OP(GRU, "", rnn, 1, 3, 6, rnn, rnn, OPV_GRU)
OP(RNN, "", rnn, 1, 3, 6, rnn, rnn, OPV_RNN)
/* ---- shape (compiler/ops/shape.c) */
OP_KNOWN(Shape, "", shape, 1, 1, 1, shape, 0)
OP_KNOWN(Size, "", shape, 1, 1, 1, size, 0)
OP(Reshape, "", shape, 1, 1, 2, reshape, reshape, 0)
OP(Flatten, "", shape, 1, 1, 1, flatten, copy, 0)
OP(Squeeze, "", shape, 1, 1, 2, squeeze, squeeze, OPV_SQUEEZE)
OP(Unsqueeze, "", shape, 1, 1, 2, unsqueeze, squeeze, OPV_UNSQUEEZE)
OP(Identity, "", shape, 1, 1, 1, identity, copy, 0)
OP(Dropout, "", shape, 1, 1, 3, dropout, dropout, 0)
OP_KNOWN(Constant, "", shape, 1, 0, 0, constant, 0)
OP(ConstantOfShape, "", shape, 9, 1, 1, constantofshape, constantofshape, 0)
OP(Range, "", shape, 11, 3, 3, range, range, 0)
OP(Expand, "", shape, 8, 2, 2, expand, expand, 0)
OP(Tile, "", shape, 1, 2, 3, tile, tile, 0)
/* ---- signal (compiler/ops/signal.c) */
OP(HannWindow, "", signal, 17, 1, 1, window, window, OPV_HANN)
OP(HammingWindow, "", signal, 17, 1, 1, window, window, OPV_HAMMING)
OP(BlackmanWindow, "", signal, 17, 1, 1, window, window, OPV_BLACKMAN)
OP(DFT, "", signal, 17, 1, 2, dft, dft, 0)
OP(STFT, "", signal, 17, 2, 4, stft, stft, 0)
OP(MelWeightMatrix, "", signal, 17, 5, 5, mel, mel, 0)
/* ---- softmax (compiler/ops/softmax.c) */
OP(Softmax, "", softmax, 1, 1, 1, softmax, softmax, OPV_SOFTMAX)
OP(LogSoftmax, "", softmax, 1, 1, 1, softmax, softmax, OPV_LOGSOFTMAX)
OP(Hardmax, "", softmax, 1, 1, 1, softmax, softmax, OPV_HARDMAX)
/* ---- spatial (compiler/ops/spatial.c) */
OP(GridSample, "", spatial, 16, 2, 2, gridsample, gridsample, 0)
OP(RoiAlign, "", spatial, 10, 3, 3, roialign, roialign, 0)
OP(MaxUnpool, "", spatial, 9, 2, 3, maxunpool, maxunpool, 0)
/* ---- text (compiler/ops/text.c) */
OP(TfIdfVectorizer, "", text, 9, 1, 1, tfidf, tfidf, 0)
/* ---- training (compiler/ops/training.c) */
OP(Adagrad, "ai.onnx.preview.training", training, 1, 3, -1, adagrad, optimizer, 0)
OP(Adam, "ai.onnx.preview.training", training, 1, 3, -1, adam, optimizer, 0)
OP(Momentum, "ai.onnx.preview.training", training, 1, 3, -1, momentum, optimizer, 0)
/* ---- random draws (compiler/ops/random.c) */
OP(RandomUniform, "", random, 1, 0, 0, random, random, OPV_UNIFORM)
OP(RandomNormal, "", random, 1, 0, 0, random, random, OPV_NORMAL)
OP(RandomUniformLike, "", random, 1, 1, 1, random, random, OPV_UNIFORM_LIKE)
OP(RandomNormalLike, "", random, 1, 1, 1, random, random, OPV_NORMAL_LIKE)
OP(Bernoulli, "", random, 15, 1, 1, bernoulli, bernoulli, 0)
OP(Multinomial, "", random, 7, 1, 1, multinomial, multinomial, 0)
