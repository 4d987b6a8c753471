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


def softmax(results, timer, triton_peers, quick):
    family = "softmax half"
    kern = compile_kernel("softmax.tc", {"TYPE": "half", "TM": 1, "TN": 1024}, 4)
    shapes = ((4096, 4096),) if quick else ((4096, 4096), (8192, 8192), (32768, 1024))
    for rows, cols in shapes:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        moved = 2.0 * x.numel() * x.element_size()
        label = f"{rows}x{cols}"
        ref = torch.softmax(x.float(), dim=1)
        run = lambda: kern[(rows,)](x, y, rows, cols, x.stride(0), y.stride(0))
        run()
        err = (y.float() - ref).abs().max().item()
        assert err < 1e-2, f"softmax {label}: max error {err}"
        results.add(family, label, "tritonc", "GB/s", moved / timer(run) / 1e9, "softmax.tc TM=1 TN=1024 w4")
        results.add_kernel(f"{family} {label}: softmax.tc TM=1 TN=1024 w4", kern)
        results.add(family, label, "torch", "GB/s", moved / timer(lambda: torch.softmax(x, dim=1)) / 1e9)
        if triton_peers:
            triton_peers.softmax(x, y)
            err = (y.float() - ref).abs().max().item()
            assert err < 1e-2, f"Triton softmax {label}: max error {err}"
            results.add(family, label, "triton", "GB/s",
                        moved / timer(lambda: triton_peers.softmax(x, y)) / 1e9)
        results.add(family, label, "copy", "GB/s", moved / timer(lambda: y.copy_(x)) / 1e9)
