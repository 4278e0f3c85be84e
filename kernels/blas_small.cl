// Skinny matrix products (launcher: kernels/blas.cpp, gemm_small_n): C = alpha * A @ B + beta * C
// for C with N <= SMALL_N columns, one work item per row of C. CLBlast pads such a C to its tile
// width (64 columns) and loses on CPU devices; here each row of A is read once. ST / ACC come
// from dtype_preamble (float or double); strides are in elements. beta == 0 never reads C.
#define SMALL_N 16

__kernel void gemm_small_n(__global char* ab, ulong ao, __global char* bb, ulong bo, __global char* cb,
                           ulong co, long M, long N, long K, long a_rs, long a_cs, long b_rs, long b_cs,
                           long c_rs, long c_cs, ACC alpha, ACC beta) {
  __global const ST* A = PTR(ST, ab, ao);
  __global const ST* B = PTR(ST, bb, bo);
  __global ST* C = PTR(ST, cb, co);
  for (long r = get_global_id(0); r < M; r += get_global_size(0)) {
    __global const ST* a = A + r * a_rs;
    ACC acc[SMALL_N];
#pragma unroll
    for (int j = 0; j < SMALL_N; ++j) acc[j] = 0;
    for (long k = 0; k < K; ++k) {
      const ACC x = a[k * a_cs];
      __global const ST* b = B + k * b_rs;
#pragma unroll
      for (int j = 0; j < SMALL_N; ++j)
        if (j < N) acc[j] += x * b[j * b_cs];
    }
#pragma unroll
    for (int j = 0; j < SMALL_N; ++j) {
      if (j < N) {
        __global ST* c = C + r * c_rs + j * c_cs;
        *c = beta == 0 ? alpha * acc[j] : alpha * acc[j] + beta * *c;
      }
    }
  }
}

// The same for A with contiguous rows and Bt = B transposed, contiguous [N, K]: each C element
// is a dot product of two contiguous vectors (8 wide); A's row is read from memory once, then
// from cache for the other columns.
#define HSUM8(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3) + ((v).s4 + (v).s5) + ((v).s6 + (v).s7))

__kernel void gemm_small_n_rows(__global char* ab, ulong ao, __global char* bb, ulong bo, __global char* cb,
                                ulong co, long M, long N, long K, long a_rs, long c_rs, long c_cs, ACC alpha,
                                ACC beta) {
  __global const ST* A = PTR(ST, ab, ao);
  __global const ST* Bt = PTR(ST, bb, bo);
  __global ST* C = PTR(ST, cb, co);
  const long K8 = K & ~7L;
  for (long r = get_global_id(0); r < M; r += get_global_size(0)) {
    __global const ST* a = A + r * a_rs;
    long j = 0;
    for (; j + 4 <= N; j += 4) {  // four columns per pass over A's row
      __global const ST* b = Bt + j * K;
      ACC8 s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (long k = 0; k < K8; k += 8) {
        const ACC8 x = CONVERT_ACC8(vload8(0, a + k));
        s0 = fma(x, CONVERT_ACC8(vload8(0, b + k)), s0);
        s1 = fma(x, CONVERT_ACC8(vload8(0, b + K + k)), s1);
        s2 = fma(x, CONVERT_ACC8(vload8(0, b + 2 * K + k)), s2);
        s3 = fma(x, CONVERT_ACC8(vload8(0, b + 3 * K + k)), s3);
      }
      ACC s[4] = {HSUM8(s0), HSUM8(s1), HSUM8(s2), HSUM8(s3)};
      for (long k = K8; k < K; ++k)
        for (int q = 0; q < 4; ++q) s[q] += (ACC)a[k] * (ACC)b[q * K + k];
      for (int q = 0; q < 4; ++q) {
        __global ST* c = C + r * c_rs + (j + q) * c_cs;
        *c = beta == 0 ? alpha * s[q] : alpha * s[q] + beta * *c;
      }
    }
    for (; j < N; ++j) {
      __global const ST* b = Bt + j * K;
      ACC8 s8 = 0;
      for (long k = 0; k < K8; k += 8) s8 = fma(CONVERT_ACC8(vload8(0, a + k)), CONVERT_ACC8(vload8(0, b + k)), s8);
      ACC s = HSUM8(s8);
      for (long k = K8; k < K; ++k) s += (ACC)a[k] * (ACC)b[k];
      __global ST* c = C + r * c_rs + j * c_cs;
      *c = beta == 0 ? alpha * s : alpha * s + beta * *c;
    }
  }
}

// Tiny products (launcher: kernels/blas.cpp, gemm_tiny): C = alpha * A @ B + beta * D over a batch,
// for rows of A and columns of B that are contiguous (a linear layer's x @ W^T): one work item per
// element of C, an 8-wide dot product. Other strides in elements; batch stride 0 broadcasts. D is C
// itself or addmm's broadcast addend, read only when beta != 0: one launch where the tiled kernel
// takes three (addend copy, packing B, product).
__kernel void gemm_tiny(__global char* ab, ulong ao, __global char* bb, ulong bo, __global char* db, ulong d_o,
                        __global char* cb, ulong co, long M, long N, long K, long total, long a_bs, long a_rs,
                        long b_bs, long b_cs, long d_bs, long d_rs, long d_cs, long c_bs, long c_rs, long c_cs,
                        ACC alpha, ACC beta) {
  __global const ST* A = PTR(ST, ab, ao);
  __global const ST* B = PTR(ST, bb, bo);
  __global const ST* D = PTR(ST, db, d_o);
  __global ST* C = PTR(ST, cb, co);
  for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
    // 32-bit division (64-bit division is a library call on CPUs): total < 2^31 here
    const uint iu = (uint)i, nu = (uint)N, rows = iu / nu;
    const long col = iu - rows * nu, row = rows % (uint)M, bat = rows / (uint)M;
    __global const ST* a = A + bat * a_bs + row * a_rs;
    __global const ST* b = B + bat * b_bs + col * b_cs;
    ACC8 acc8 = 0;
    long k = 0;
    for (; k + 8 <= K; k += 8) acc8 += CONVERT_ACC8(vload8(0, a + k)) * CONVERT_ACC8(vload8(0, b + k));
    ACC acc = HSUM8(acc8);
    for (; k < K; ++k) acc += (ACC)a[k] * (ACC)b[k];
    const ACC d = beta == 0 ? (ACC)0 : beta * (ACC)D[bat * d_bs + row * d_rs + col * d_cs];
    C[bat * c_bs + row * c_rs + col * c_cs] = (ST)(beta == 0 ? alpha * acc : alpha * acc + d);
  }
}


// The same for contiguous rows of B (x @ W, and the weight gradient dW^T @ x of a linear layer):
// one work item per 8 consecutive elements of a row of C, B's rows read 8 wide.
__kernel void gemm_tiny_b_rows(__global char* ab, ulong ao, __global char* bb, ulong bo, __global char* db,
                               ulong d_o, __global char* cb, ulong co, long M, long N, long K, long total,
                               long a_bs, long a_rs, long a_cs, long b_bs, long b_rs, long d_bs, long d_rs,
                               long d_cs, long c_bs, long c_rs, long c_cs, ACC alpha, ACC beta) {
  __global const ST* A = PTR(ST, ab, ao);
  __global const ST* B = PTR(ST, bb, bo);
  __global const ST* D = PTR(ST, db, d_o);
  __global ST* C = PTR(ST, cb, co);
  const uint n8 = (uint)((N + 7) / 8);
  for (long i = get_global_id(0); i < total; i += get_global_size(0)) {  // total = batch * M * n8
    const uint iu = (uint)i, rows = iu / n8;
    const long col = (long)(iu - rows * n8) * 8, row = rows % (uint)M, bat = rows / (uint)M;
    __global const ST* a = A + bat * a_bs + row * a_rs;
    __global const ST* b = B + bat * b_bs + col;
    const long d_off = bat * d_bs + row * d_rs + col * d_cs, c_off = bat * c_bs + row * c_rs + col * c_cs;
    if (col + 8 <= N) {
      ACC8 acc = 0;
      for (long k = 0; k < K; ++k) acc += (ACC)a[k * a_cs] * CONVERT_ACC8(vload8(0, b + k * b_rs));
      for (int j = 0; j < 8; ++j) {
        const ACC v = alpha * acc[j];
        C[c_off + j * c_cs] = (ST)(beta == 0 ? v : v + beta * (ACC)D[d_off + j * d_cs]);
      }
    } else {
      for (long j = 0; col + j < N; ++j) {
        ACC acc = 0;
        for (long k = 0; k < K; ++k) acc += (ACC)a[k * a_cs] * (ACC)b[k * b_rs + j];
        const ACC v = alpha * acc;
        C[c_off + j * c_cs] = (ST)(beta == 0 ? v : v + beta * (ACC)D[d_off + j * d_cs]);
      }
    }
  }
}
