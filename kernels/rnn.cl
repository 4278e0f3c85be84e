// Fused RNN cells (the ops nn.LSTM / nn.GRU / LSTMCell / GRUCell call on
// accelerators): the gate nonlinearities of one time step after the two
// GEMMs. One work item per (batch row, hidden unit); all tensors contiguous
// (the launcher, kernels/rnn_ops.cpp, makes them so). Math in CT (float for
// half types), as CUDA's accscalar_t.
//
// Workspace layouts (as CUDA's, so a workspace means the same on both):
//   LSTM  [B, 4H]: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
//   GRU   [B, 5H]: sigmoid(r), sigmoid(z), tanh(n), hx, hidden_n + hidden_bias_n

static inline CT rnn_sigmoid(CT x) { return (CT)1 / ((CT)1 + exp(-x)); }

// The sum of gate k (of `ngates`) for item (b, j): both GEMM results plus
// both biases (absent: has_bias = 0).
#define GATE(in, hid, b1, b2, k) \
  ((CT)LOAD(in, row + (k) * H + j) + (CT)LOAD(hid, row + (k) * H + j) + \
   (has_bias ? (CT)LOAD(b1, (k) * H + j) : (CT)0) + (has_bias ? (CT)LOAD(b2, (k) * H + j) : (CT)0))

__kernel void lstm_cell_forward(__global char* igb, ulong igo, __global char* hgb, ulong hgo,
                                __global char* b1b, ulong b1o, __global char* b2b, ulong b2o,
                                __global char* cxb, ulong cxo, __global char* hyb, ulong hyo,
                                __global char* cyb, ulong cyo, __global char* wsb, ulong wso,
                                long H, long n, int has_bias) {
  __global ST* ig = PTR(ST, igb, igo);
  __global ST* hg = PTR(ST, hgb, hgo);
  __global ST* b1 = PTR(ST, b1b, b1o);
  __global ST* b2 = PTR(ST, b2b, b2o);
  __global ST* cx = PTR(ST, cxb, cxo);
  __global ST* hy = PTR(ST, hyb, hyo);
  __global ST* cy = PTR(ST, cyb, cyo);
  __global ST* ws = PTR(ST, wsb, wso);
  GRID_LOOP(i, n) {
    const long j = i % H, row = (i / H) * 4 * H;
    const CT in_g = rnn_sigmoid(GATE(ig, hg, b1, b2, 0));
    const CT f_g = rnn_sigmoid(GATE(ig, hg, b1, b2, 1));
    const CT c_g = tanh(GATE(ig, hg, b1, b2, 2));
    const CT o_g = rnn_sigmoid(GATE(ig, hg, b1, b2, 3));
    const CT c = f_g * (CT)LOAD(cx, i) + in_g * c_g;
    STORE(cy, i, c);
    STORE(hy, i, o_g * tanh(c));
    STORE(ws, row + j, in_g);
    STORE(ws, row + H + j, f_g);
    STORE(ws, row + 2 * H + j, c_g);
    STORE(ws, row + 3 * H + j, o_g);
  }
}

// grad_gates [B, 4H] (pre-activation gradients) and grad_cx [B, H]; an
// absent grad_hy / grad_cy counts as zeros.
__kernel void lstm_cell_backward(__global char* ghb, ulong gho, __global char* gcb, ulong gco,
                                 __global char* cxb, ulong cxo, __global char* cyb, ulong cyo,
                                 __global char* wsb, ulong wso, __global char* ggb, ulong ggo,
                                 __global char* gcxb, ulong gcxo, long H, long n, int has_gh, int has_gc) {
  __global ST* gh = PTR(ST, ghb, gho);
  __global ST* gc = PTR(ST, gcb, gco);
  __global ST* cx = PTR(ST, cxb, cxo);
  __global ST* cy = PTR(ST, cyb, cyo);
  __global ST* ws = PTR(ST, wsb, wso);
  __global ST* gg = PTR(ST, ggb, ggo);
  __global ST* gcx = PTR(ST, gcxb, gcxo);
  GRID_LOOP(i, n) {
    const long j = i % H, row = (i / H) * 4 * H;
    const CT in_g = LOAD(ws, row + j), f_g = LOAD(ws, row + H + j);
    const CT c_g = LOAD(ws, row + 2 * H + j), o_g = LOAD(ws, row + 3 * H + j);
    const CT go = has_gh ? (CT)LOAD(gh, i) : (CT)0;
    const CT gcy = has_gc ? (CT)LOAD(gc, i) : (CT)0;
    const CT t = tanh((CT)LOAD(cy, i));
    const CT dc = go * o_g * ((CT)1 - t * t) + gcy;
    STORE(gg, row + j, dc * c_g * ((CT)1 - in_g) * in_g);
    STORE(gg, row + H + j, dc * (CT)LOAD(cx, i) * ((CT)1 - f_g) * f_g);
    STORE(gg, row + 2 * H + j, dc * in_g * ((CT)1 - c_g * c_g));
    STORE(gg, row + 3 * H + j, go * t * ((CT)1 - o_g) * o_g);
    STORE(gcx, i, dc * f_g);
  }
}

__kernel void gru_cell_forward(__global char* igb, ulong igo, __global char* hgb, ulong hgo,
                               __global char* b1b, ulong b1o, __global char* b2b, ulong b2o,
                               __global char* hxb, ulong hxo, __global char* hyb, ulong hyo,
                               __global char* wsb, ulong wso, long H, long n, int has_bias) {
  __global ST* ig = PTR(ST, igb, igo);
  __global ST* hg = PTR(ST, hgb, hgo);
  __global ST* b1 = PTR(ST, b1b, b1o);
  __global ST* b2 = PTR(ST, b2b, b2o);
  __global ST* hx = PTR(ST, hxb, hxo);
  __global ST* hy = PTR(ST, hyb, hyo);
  __global ST* ws = PTR(ST, wsb, wso);
  GRID_LOOP(i, n) {
    const long j = i % H, row = (i / H) * 3 * H, wrow = (i / H) * 5 * H;
    const CT r = rnn_sigmoid(GATE(ig, hg, b1, b2, 0));
    const CT z = rnn_sigmoid(GATE(ig, hg, b1, b2, 1));
    const CT hn = (CT)LOAD(hg, row + 2 * H + j) + (has_bias ? (CT)LOAD(b2, 2 * H + j) : (CT)0);
    const CT in_n = (CT)LOAD(ig, row + 2 * H + j) + (has_bias ? (CT)LOAD(b1, 2 * H + j) : (CT)0);
    const CT ng = tanh(in_n + r * hn);
    const CT h = LOAD(hx, i);
    STORE(hy, i, ng + z * (h - ng));
    STORE(ws, wrow + j, r);
    STORE(ws, wrow + H + j, z);
    STORE(ws, wrow + 2 * H + j, ng);
    STORE(ws, wrow + 3 * H + j, h);
    STORE(ws, wrow + 4 * H + j, hn);
  }
}

// grad_input_gates, grad_hidden_gates [B, 3H] and grad_hx [B, H].
__kernel void gru_cell_backward(__global char* ghb, ulong gho, __global char* wsb, ulong wso,
                                __global char* gib, ulong gio, __global char* ghgb, ulong ghgo,
                                __global char* ghxb, ulong ghxo, long H, long n) {
  __global ST* gh = PTR(ST, ghb, gho);
  __global ST* ws = PTR(ST, wsb, wso);
  __global ST* gi = PTR(ST, gib, gio);
  __global ST* ghg = PTR(ST, ghgb, ghgo);
  __global ST* ghx = PTR(ST, ghxb, ghxo);
  GRID_LOOP(i, n) {
    const long j = i % H, row = (i / H) * 3 * H, wrow = (i / H) * 5 * H;
    const CT r = LOAD(ws, wrow + j), z = LOAD(ws, wrow + H + j), ng = LOAD(ws, wrow + 2 * H + j);
    const CT h = LOAD(ws, wrow + 3 * H + j), hn = LOAD(ws, wrow + 4 * H + j);
    const CT go = LOAD(gh, i);
    const CT gz = go * (h - ng) * ((CT)1 - z) * z;
    const CT gn = go * ((CT)1 - z) * ((CT)1 - ng * ng);
    const CT gr = gn * hn * ((CT)1 - r) * r;
    STORE(gi, row + j, gr);
    STORE(gi, row + H + j, gz);
    STORE(gi, row + 2 * H + j, gn);
    STORE(ghg, row + j, gr);
    STORE(ghg, row + H + j, gz);
    STORE(ghg, row + 2 * H + j, gn * r);
    STORE(ghx, i, go * z);
  }
}
