// Integer matrix products (launcher: kernels/blas.cpp, gemm_integer): C = alpha * A @ B + beta * D
// over a batch, one work item per element of C, any strides (in elements; batch stride 0
// broadcasts). Products and sums are 64-bit and stored into ST: their low bits equal the CPU's
// wrapping arithmetic in ST. D is C itself or addmm's broadcast addend, read only when beta != 0.
// (CLBlast and the float kernels have no integer types.)
__kernel void gemm_integer(__global char* ab, ulong ao, __global char* bb, ulong bo, __global char* db, ulong d_o,
                           __global char* cb, ulong co, long M, long N, long K, long total, long a_bs, long a_rs,
                           long a_cs, long b_bs, long b_rs, long b_cs, long d_bs, long d_rs, long d_cs, long c_bs,
                           long c_rs, long c_cs, long alpha, long beta) {
  __global const ST* A = PTR(ST, ab, ao);
  __global const ST* B = PTR(ST, bb, bo);
  __global const ST* D = PTR(ST, db, d_o);
  __global ST* C = PTR(ST, cb, co);
  for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
    const long col = i % N, row = (i / N) % M, bat = i / (M * N);
    __global const ST* a = A + bat * a_bs + row * a_rs;
    __global const ST* b = B + bat * b_bs + col * b_cs;
    ulong acc = 0;  // unsigned: wrapping, as the CPU's sums in ST
    for (long k = 0; k < K; ++k) acc += (ulong)(long)a[k * a_cs] * (ulong)(long)b[k * b_rs];  // (signed overflow is undefined)
    ulong v = (ulong)alpha * acc;
    if (beta != 0) v += (ulong)beta * (ulong)(long)D[bat * d_bs + row * d_rs + col * d_cs];
    C[bat * c_bs + row * c_rs + col * c_cs] = (ST)(long)v;
  }
}
