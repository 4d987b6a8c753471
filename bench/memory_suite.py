"""Memory-bound benchmarks: transposition (fp16, fp32) and fused softmax (fp16), next to the device copy
bandwidth of the same bytes (Tensor.copy_), torch.softmax and upstream Triton's fused softmax."""
import torch

from common import DTYPE_NAMES, compile_kernel


def transpose(results, timer, quick):
    for dtype in (torch.float16, torch.float32):
        name = DTYPE_NAMES[dtype]
        family = f"transpose {name}"
        tm = tn = 64
        kern = compile_kernel("transpose.tc", {"TYPE": name, "TM": tm, "TN": tn}, 4)
        for size in (8192,) if quick else (8192, 16384):
            x = torch.randn(size, size, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            moved = 2.0 * x.numel() * x.element_size()
            run = lambda: kern[(size // tm, size // tn)](x, y, size, size, size, size)
            run()
            assert torch.equal(y, x.t()), f"{family} {size}: wrong result"
            results.add(family, f"{size}^2", "tritonc", "GB/s", moved / timer(run) / 1e9,
                        f"transpose.tc {tm}x{tn} w4")
            results.add(family, f"{size}^2", "copy", "GB/s", moved / timer(lambda: y.copy_(x)) / 1e9)
            results.add_kernel(f"{family} {size}^2: transpose.tc {tm}x{tn} w4", kern)


def softmax_configs(cols):
    """(TM, TN, num_warps) candidates: whole rows in one chunk (TN the next power of two of the row length,
    one read of X), at most 64 floats per thread, plus the chunked two-pass form for reference."""
    tn = 1 << (cols - 1).bit_length()
    out = [(tm, tn, w) for tm in (1, 2, 4) for w in (4, 8, 16) if tm * tn <= 64 * 32 * w]
    return out + [(1, 1024, 4)]


def softmax(results, timer, triton_peers, quick):
    family = "softmax half"
    shapes = ((4096, 4096),) if quick else ((4096, 4096), (8192, 8192), (32768, 1024))
    for rows, cols in shapes:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        moved = 2.0 * x.numel() * x.element_size()
        label = f"{rows}x{cols}"
        ref = torch.softmax(x.float(), dim=1)
        best = None
        for tm, tn, warps in softmax_configs(cols):
            kern = compile_kernel("softmax.tc", {"TYPE": "half", "TM": tm, "TN": tn}, warps)
            run = lambda: kern[((rows + tm - 1) // tm,)](x, y, rows, cols, x.stride(0), y.stride(0))
            y.fill_(float("nan"))
            run()
            err = (y.float() - ref).abs().max().item()
            assert err < 1e-2, f"softmax {label} TM={tm} TN={tn} w{warps}: max error {err}"
            seconds = timer(run)
            if best is None or seconds < best[0]:
                best = (seconds, f"softmax.tc TM={tm} TN={tn} w{warps}", kern)
        results.add(family, label, "tritonc", "GB/s", moved / best[0] / 1e9, best[1])
        results.add_kernel(f"{family} {label}: {best[1]}", best[2])
        results.add(family, label, "torch", "GB/s", moved / timer(lambda: torch.softmax(x, dim=1)) / 1e9)
        if triton_peers:
            triton_peers.softmax(x, y)
            err = (y.float() - ref).abs().max().item()
            assert err < 1e-2, f"Triton softmax {label}: max error {err}"
            results.add(family, label, "triton", "GB/s",
                        moved / timer(lambda: triton_peers.softmax(x, y)) / 1e9)
        results.add(family, label, "copy", "GB/s", moved / timer(lambda: y.copy_(x)) / 1e9)
