"""Rules for the OpenCL C sources in kernels/*.cl that no compiler enforces.

Helper functions must be `static inline`. PoCL compiles every program with
`-Dinline=`, so a plain `inline` helper becomes an external definition: it is
emitted, linked against the built-in library and optimised in every program
that includes its file, used or not. A `static` helper that no kernel calls is
dropped by the front end. Measured on PoCL 3.1 (2-core host): a pointwise
program (common.cl + pointwise_lib.cl + one op) built in 0.39-0.50 s with plain
`inline` helpers and 0.19-0.35 s with `static inline` ones.
"""

import pathlib
import re

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "kernels"

# A function definition or declaration at file scope: a type (one or more
# words), a name, then "(". Kernels, macros and `static` helpers are exempt.
_FILE_SCOPE_FUNCTION = re.compile(
    r"^(?!static |__kernel |kernel |typedef |#|//)[A-Za-z_]\w*(\s+\w+)*\s+\**[A-Za-z_]\w*\s*\(")


def non_static_helpers(text):
    return [line.strip() for line in text.splitlines() if _FILE_SCOPE_FUNCTION.match(line)]


def test_rule_flags_plain_inline_and_extern_helpers():
    src = ("inline T pw_max(T a, T b) { return a; }\n"
           "float helper(float x) {\n"
           "unsigned long long wide(long x);\n"
           "static inline T ok(T a) { return a; }\n"
           "__kernel void k(__global float* x) {}\n"
           "CONTINUOUS_KERNEL(rng_uniform, uniform_value(u, a, b))\n"
           "#define F(x) inline float f(x)\n"
           "__constant T table[3] = {1, 2, 3};\n")
    assert non_static_helpers(src) == ["inline T pw_max(T a, T b) { return a; }",
                                       "float helper(float x) {", "unsigned long long wide(long x);"]


def test_kernel_helpers_are_static_inline():
    files = sorted(KERNELS.glob("*.cl"))
    assert len(files) > 20, f"kernel sources not found under {KERNELS}"
    offenders = [f"{p.name}: {line}" for p in files for line in non_static_helpers(p.read_text())]
    assert not offenders, "helpers in kernels/*.cl must be `static inline`:\n" + "\n".join(offenders)
