"""tritonc.ops: the torch.library operators. On CPU tensors (the interpreter): registration, fake
implementations and torch.compile tracing with no graph break. On the GPU: results and gradients
against float64 torch references. Needs torch (the GPU machine has it; CI does not)."""

import pytest

torch = pytest.importorskip("torch", reason="tritonc.ops are torch operators")

import tritonc  # noqa: E402
from tritonc import ops  # noqa: E402

_GPU = tritonc.cuda_available() and torch.cuda.is_available()
gpu = pytest.mark.skipif(not _GPU, reason="needs a CUDA device")


def test_tritonc_imported_before_torch():
    """On the H100 host, `import tritonc; import torch` crashed in torch's ostream code: the
    module exported the symbols of the C++ runtime linked into it statically."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "import tritonc; import torch; print(torch.ones(2).sum())"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "tensor(2.)" in out.stdout


def test_the_ops_are_registered_with_fake_implementations():
    for name in ("matmul", "softmax", "conv2d", "transpose"):
        assert hasattr(torch.ops.tritonc, name)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(64, 32)
        b = torch.empty(32, 48)
        assert ops.matmul(a, b).shape == (64, 48)
        assert ops.softmax(a).shape == (64, 32)
        assert ops.transpose(a).shape == (32, 64)
        x = torch.empty(2, 3, 9, 9)
        w = torch.empty(4, 3, 3, 3)
        assert ops.conv2d(x, w, stride=2, padding=1).shape == (2, 4, 5, 5)
        assert ops.conv2d(x, w, padding=1, dilation=(2, 3)).shape == (2, 4, 7, 5)


def test_cpu_tensors_run_on_the_interpreter():
    a = torch.randn(20, 12)
    b = torch.randn(12, 9)
    torch.testing.assert_close(ops.matmul(a, b), a @ b)
    torch.testing.assert_close(ops.matmul(a.t().contiguous().t(), b), a @ b)
    torch.testing.assert_close(ops.softmax(a), torch.softmax(a, dim=1))
    torch.testing.assert_close(ops.transpose(a), a.t())


def test_channels_last_conv2d_runs_the_nhwc_kernel_on_the_interpreter():
    """A channels_last input runs conv_nhwc.tc (TK = 4 for 12 channels, dilation-free here) and
    gives a channels_last output; an NCHW input gives an NCHW output (conv.tc or the channels-last
    kernels through copies, whichever is faster: the next test)."""
    x = torch.randn(2, 12, 9, 7).to(memory_format=torch.channels_last)
    w = torch.randn(5, 12, 3, 2)
    ref = torch.nn.functional.conv2d(x.double(), w.double(), stride=(2, 1), padding=(1, 0))
    y = ops.conv2d(x, w, stride=(2, 1), padding=(1, 0))
    assert y.is_contiguous(memory_format=torch.channels_last) and not y.is_contiguous()
    torch.testing.assert_close(y.double(), ref, rtol=1e-5, atol=1e-5)
    y_nchw = ops.conv2d(x.contiguous(), w, stride=(2, 1), padding=(1, 0))
    assert y_nchw.is_contiguous()
    torch.testing.assert_close(y_nchw.double(), ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("preferred", ["conv.tc", "channels_last"])
def test_nchw_conv2d_times_conv_tc_against_the_channels_last_kernels_on_the_interpreter(preferred,
                                                                                    monkeypatch):
    """An NCHW input: conv.tc against the channels-last kernels through copies of the input and the
    output, the faster kept (forced here); an NCHW result equal to float64 torch with either, and
    gradients from the channels-last backward kernels (no unfold / fold), the data gradient NCHW."""
    timed = _prefer(monkeypatch, (preferred, "conv_nhwc.tc", "conv_nhwc_dgrad.tc", "conv_nhwc_wgrad.tc"))
    calls = _spy_on_backward_kernels(monkeypatch)
    x = torch.randn(2, 12, 9, 7).requires_grad_()
    w = torch.randn(6, 12, 3, 2).requires_grad_()
    y = ops.conv2d(x, w, stride=(2, 1), padding=(1, 0))
    xr, wr = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    ref = torch.nn.functional.conv2d(xr, wr, stride=(2, 1), padding=(1, 0))
    assert y.is_contiguous()
    torch.testing.assert_close(y.double(), ref, rtol=1e-5, atol=1e-5)
    grad = torch.randn(ref.shape)
    y.backward(grad)
    ref.backward(grad.double())
    assert x.grad.is_contiguous()
    torch.testing.assert_close(x.grad.double(), xr.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(w.grad.double(), wr.grad, rtol=1e-4, atol=1e-4)
    assert "conv.tc" in timed and "channels_last" in timed
    assert calls == ["_conv2d_nhwc_dgrad", "_conv2d_nhwc_wgrad"]
    assert preferred in ops._KERNEL_CHOICES.values()


def test_dilated_conv2d_runs_the_nhwc_kernel_in_either_layout_on_the_interpreter():
    """dilation= reaches conv_nhwc.tc's dil_h/dil_w (conv.tc has none: an NCHW input goes through
    channels_last and comes back NCHW), against torch in float64; with its gradients."""
    x = torch.randn(2, 8, 11, 9)
    w = torch.randn(5, 8, 3, 2)
    ref = torch.nn.functional.conv2d(x.double(), w.double(), stride=(1, 2), padding=(2, 1),
                                     dilation=(2, 3))
    y_nhwc = ops.conv2d(x.to(memory_format=torch.channels_last), w, (1, 2), (2, 1), (2, 3))
    assert y_nhwc.is_contiguous(memory_format=torch.channels_last)
    torch.testing.assert_close(y_nhwc.double(), ref, rtol=1e-5, atol=1e-5)
    y_nchw = ops.conv2d(x, w, stride=(1, 2), padding=(2, 1), dilation=(2, 3))
    assert y_nchw.is_contiguous()
    torch.testing.assert_close(y_nchw.double(), ref, rtol=1e-5, atol=1e-5)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    xr, wr = x.double().requires_grad_(), w.double().requires_grad_()
    grad = torch.randn(ref.shape)
    ops.conv2d(xg, wg, stride=(1, 2), padding=(2, 1), dilation=(2, 3)).backward(grad)
    torch.nn.functional.conv2d(xr, wr, stride=(1, 2), padding=(2, 1), dilation=(2, 3)).backward(
        grad.double())
    torch.testing.assert_close(xg.grad.double(), xr.grad, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(wg.grad.double(), wr.grad, rtol=1e-4, atol=1e-4)


def test_torch_compile_traces_a_model_with_no_graph_break():
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(16, 8))

        def forward(self, x):
            return ops.softmax(ops.matmul(x, self.w))

    model = Model()
    x = torch.randn(4, 16)
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0, explanation.break_reasons
    compiled = torch.compile(model, fullgraph=True, backend="eager")
    torch.testing.assert_close(compiled(x), torch.softmax(x @ model.w, dim=1))


def _grads(fn, ref_fn, *shapes, dtype=torch.float32, rtol=1e-3, atol=1e-3, device="cuda"):
    """Checks fn's output and input gradients against ref_fn in float64."""
    inputs = [torch.randn(*s, device=device, dtype=dtype, requires_grad=True) for s in shapes]
    refs = [t.detach().double().requires_grad_() for t in inputs]
    out = fn(*inputs)
    ref = ref_fn(*refs)
    torch.testing.assert_close(out.double(), ref, rtol=rtol, atol=atol)
    # The reference takes the gradient fn's backward gets, rounded to its dtype: the
    # comparison then measures the operator, not the rounding of the incoming gradient.
    grad = torch.randn_like(ref).to(out.dtype)
    out.backward(grad)
    ref.backward(grad.double())
    for t, r in zip(inputs, refs):
        torch.testing.assert_close(t.grad.double(), r.grad, rtol=rtol, atol=atol)


@gpu
@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-4), (torch.float16, 2e-2),
                                       (torch.bfloat16, 1e-1)])
def test_matmul_and_its_gradients_against_float64(dtype, tol):
    _grads(ops.matmul, torch.matmul, (300, 200), (200, 150), dtype=dtype, rtol=tol, atol=tol * 10)


@gpu
def test_matmul_transposed_operands_and_tf32():
    a = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    b = torch.randn(256, 192, device="cuda", dtype=torch.float16)
    ref = a.double().t() @ b.double()
    torch.testing.assert_close(ops.matmul(a.t(), b).double(), ref, rtol=2e-2, atol=0.2)
    x = torch.randn(256, 256, device="cuda")
    torch.testing.assert_close(ops.matmul(x, x.t(), allow_tf32=True).double(),
                               x.double() @ x.double().t(), rtol=1e-2, atol=0.5)


@gpu
def test_softmax_and_its_gradient_against_float64():
    _grads(ops.softmax, lambda x: torch.softmax(x, dim=1), (37, 300), rtol=1e-5, atol=1e-6)


@gpu
def test_conv2d_forward_data_and_weight_gradients_against_float64():
    _grads(lambda x, w: ops.conv2d(x, w, stride=2, padding=1),
           lambda x, w: torch.nn.functional.conv2d(x, w, stride=2, padding=1),
           (2, 3, 17, 15), (8, 3, 3, 3), rtol=1e-3, atol=1e-3)


@gpu
@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-3), (torch.float16, 2e-2)])
def test_channels_last_conv2d_and_its_gradients_against_float64(dtype, tol):
    """conv_nhwc.tc on the GPU: 64 channels (TK = 32 for 16-bit types), stride 1 and 2."""
    for stride in (1, 2):
        _grads(lambda x, w: ops.conv2d(x.to(memory_format=torch.channels_last), w, stride=stride,
                                       padding=1),
               lambda x, w: torch.nn.functional.conv2d(x, w, stride=stride, padding=1),
               (2, 64, 17, 15), (48, 64, 3, 3), dtype=dtype, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("rs,stride,padding", [((3, 2), (2, 1), (1, 0)), ((1, 1), (2, 2), (0, 0)),
                                               ((3, 3), (1, 1), (1, 1))])
def test_channels_last_conv2d_gradients_run_the_nhwc_kernels_on_the_interpreter(rs, stride,
                                                                                padding,
                                                                                monkeypatch):
    """CPU tensors: the data and weight gradients of a channels_last convolution come from
    conv_nhwc_dgrad.tc and conv_nhwc_wgrad.tc on the interpreter (a 1x1 filter at stride 2 leaves
    the odd rows and columns of the data gradient zero) and match float64 torch."""
    calls = _spy_on_backward_kernels(monkeypatch)
    _grads(lambda x, w: ops.conv2d(x.to(memory_format=torch.channels_last), w, stride=stride,
                                   padding=padding),
           lambda x, w: torch.nn.functional.conv2d(x, w, stride=stride, padding=padding),
           (2, 12, 9, 7), (6, 12, *rs), rtol=1e-4, atol=1e-4, device="cpu")
    assert calls == ["_conv2d_nhwc_dgrad", "_conv2d_nhwc_wgrad"]


@pytest.mark.parametrize("wgrad", ["conv_nhwc_wgrad.tc", ops.WGRAD_GEMM])
def test_1x1_channels_last_conv2d_gradients_as_gemms_on_the_interpreter(wgrad, monkeypatch):
    """A 1x1 filter at stride 1 without padding: the data gradient is DY's pixels times the filter rows
    (matmul.tc, forced here), the weight gradient DY^T X over the pixels (matmul_splitk.tc, split-K
    through a workspace), each timed against the other routes, and both match float64 torch."""
    timed = _prefer(monkeypatch, ("matmul.tc", wgrad))
    _grads(lambda x, w: ops.conv2d(x.to(memory_format=torch.channels_last), w),
           torch.nn.functional.conv2d, (2, 16, 5, 3), (8, 16, 1, 1), rtol=1e-4, atol=1e-4, device="cpu")
    assert timed.count(ops.DGRAD_GEMM) == 2  # the forward GEMM and the data gradient's
    assert ops.DGRAD_FORWARD in timed and ops.WGRAD_GEMM in timed
    assert sorted(ops._KERNEL_CHOICES.values()) == sorted([wgrad, "matmul.tc", "matmul.tc"])
    assert all(not buf.any() for buf in ops._ZEROED_WORKSPACES.values())


def _spy_on_backward_kernels(monkeypatch):
    """Records, in the list it returns, each call of ops._conv2d_nhwc_dgrad and _conv2d_nhwc_wgrad."""
    calls = []
    for name in ("_conv2d_nhwc_dgrad", "_conv2d_nhwc_wgrad"):
        def spy(*args, _original=getattr(ops, name), _name=name):
            calls.append(_name)
            return _original(*args)
        monkeypatch.setattr(ops, name, spy)
    return calls


def _prefer(monkeypatch, preferred):
    """Makes tritonc.ops' choice among the kernels of a convolution deterministic: `preferred` times
    0 ms and every other kernel 1 ms. Returns the names timed, in order; choices start afresh."""
    timed = []

    def bench(name, launch, interpret):
        timed.append(name)
        launch()
        return 0.0 if name in preferred else 1.0
    monkeypatch.setattr(ops, "_kernel_bench", bench)
    monkeypatch.setattr(ops, "_KERNEL_CHOICES", {})
    return timed


@pytest.mark.parametrize("preferred", [("conv_nhwc_desc.tc", "conv_nhwc_desc_dgrad.tc",
                                        "conv_nhwc_desc_wgrad.tc"),
                                       ("conv_nhwc.tc", "conv_nhwc_dgrad.tc", "conv_nhwc_wgrad.tc"),
                                       ("conv_nhwc.tc", ops.DGRAD_FORWARD, "conv_nhwc_wgrad.tc")])
@pytest.mark.parametrize("padding,dilation", [((1, 1), (1, 1)), ((2, 0), (1, 2))])
def test_stride_one_channels_last_conv2d_picks_among_the_descriptor_kernels_on_the_interpreter(
        preferred, padding, dilation, monkeypatch):
    """Stride 1, channels_last, CPU tensors: the forward, data and weight gradients each time the
    descriptor kernel against the gathering one (the data gradient also as a forward convolution,
    conv_nhwc_desc.tc with DGRAD=1), keep the faster (forced here) and match float64 torch with any."""
    timed = _prefer(monkeypatch, preferred)
    _grads(lambda x, w: ops.conv2d(x.to(memory_format=torch.channels_last), w, padding=padding,
                                   dilation=dilation),
           lambda x, w: torch.nn.functional.conv2d(x, w, padding=padding, dilation=dilation),
           (2, 16, 7, 6), (8, 16, 3, 2), rtol=1e-4, atol=1e-4, device="cpu")
    assert timed == ["conv_nhwc.tc", "conv_nhwc_desc.tc", "conv_nhwc_dgrad.tc", ops.DGRAD_FORWARD,
                     "conv_nhwc_desc_dgrad.tc", "conv_nhwc_wgrad.tc", "conv_nhwc_desc_wgrad.tc"]
    assert sorted(ops._KERNEL_CHOICES.values()) == sorted(preferred)


def test_the_descriptor_forward_splits_its_k_steps_on_the_interpreter(monkeypatch):
    """conv_nhwc_desc.tc with SPLIT = 3 alone (the interpreter's tiles replaced, the descriptor kernel
    forced): 3 * 2 * CDIV(16, 8) = 12 k-steps in 3 slices adding through the workspace match float64
    torch twice in a row, and the kept counters are zero again."""
    # The interpreter's unsplit tile with SPLIT = 3, built by macro name so new macros keep it valid.
    tile = list(ops._CONV_DESC_INTERPRETER_TILES["conv_nhwc_desc.tc"][0])
    tile[ops._CONV_DESC_KERNELS["conv_nhwc_desc.tc"][0].index("SPLIT")] = 3
    monkeypatch.setitem(ops._CONV_DESC_INTERPRETER_TILES, "conv_nhwc_desc.tc", [tuple(tile)])
    ops._conv_desc_tuner.cache_clear()
    try:
        _prefer(monkeypatch, ("conv_nhwc_desc.tc",))
        x = torch.randn(2, 16, 7, 6).to(memory_format=torch.channels_last)
        w = torch.randn(8, 16, 3, 2)
        ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
        for _ in range(2):
            torch.testing.assert_close(ops.conv2d(x, w, padding=1).double(), ref, rtol=1e-5, atol=1e-5)
        assert list(ops._KERNEL_CHOICES.values()) == ["conv_nhwc_desc.tc"]
        assert all(not buf.any() for key, buf in ops._ZEROED_WORKSPACES.items() if key[2] == torch.int32)
    finally:
        ops._conv_desc_tuner.cache_clear()


@gpu
@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-2), (torch.bfloat16, 1e-1)])
def test_small_image_conv2d_times_split_descriptor_tiles_on_the_gpu(dtype, tol, monkeypatch):
    """256 @ 8x8, Z = 1 (issue 28's small image, a few output tiles on the whole GPU): conv_nhwc_desc.tc's
    split-K tiles are among its candidates; forced, whichever tile wins matches float64 torch, twice in a
    row (the counters are left zero)."""
    from tritonc.convolution import ConvShape
    _prefer(monkeypatch, ("conv_nhwc_desc.tc",))
    shape = ConvShape(1, 256, 8, 8, 256, 3, 3, padding=(1, 1))
    tuner = ops._conv_desc_tuner("conv_nhwc_desc.tc", ops._DTYPES[dtype], 0)
    candidates = ops._desc_candidates("conv_nhwc_desc.tc", tuner.configs, shape, ops._multiprocessors(0))
    assert any(c.defines["SPLIT"] > 1 for c in candidates)
    x = torch.randn(1, 256, 8, 8, device="cuda", dtype=dtype).to(memory_format=torch.channels_last)
    w = torch.randn(256, 256, 3, 3, device="cuda", dtype=dtype) / 48
    ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
    for _ in range(2):
        torch.testing.assert_close(ops.conv2d(x, w, padding=1).double(), ref, rtol=tol, atol=tol * 10)
    assert list(ops._KERNEL_CHOICES.values()) == ["conv_nhwc_desc.tc"]


def test_a_candidate_kernel_none_of_whose_tiles_runs_is_left_out(monkeypatch):
    """A kernel whose autotuner finds no tile that compiles and launches (a back-end limit on the GPU)
    drops out of the choice while another kernel remains; alone, or with another error, it raises."""
    monkeypatch.setattr(ops, "_KERNEL_CHOICES", {})
    runs = []

    def works():
        runs.append("works")

    def fails(message="autotune: no configuration compiled and launched: tma_load: ..."):
        runs.append("fails")
        raise RuntimeError(message)
    assert ops._run_fastest("k1", {"fails": fails, "works": works}, True) == "works"
    assert runs == ["fails", "works", "works", "works"]  # tuned, timed (one run), then run
    assert ops._run_fastest("k1", {"fails": fails, "works": works}, True) == "works"
    with pytest.raises(RuntimeError, match="no configuration"):
        ops._run_fastest("k2", {"fails": fails, "also fails": fails}, True)
    with pytest.raises(RuntimeError, match="device lost"):
        ops._run_fastest("k3", {"works": works, "fails": lambda: fails("device lost")}, True)


def test_descriptor_kernels_are_no_candidates_where_they_cannot_run(monkeypatch):
    """Stride 2 has no descriptor kernel; 12 channels would leave idle columns in the interpreter's
    TK = 8: only the gathering kernel runs (nothing to time)."""
    timed = _prefer(monkeypatch, ())
    for stride, ci in (((2, 1), 16), ((1, 1), 12)):
        x = torch.randn(1, ci, 6, 5).to(memory_format=torch.channels_last)
        w = torch.randn(8, ci, 3, 3)
        ref = torch.nn.functional.conv2d(x.double(), w.double(), stride=stride, padding=1)
        torch.testing.assert_close(ops.conv2d(x, w, stride, 1).double(), ref, rtol=1e-5, atol=1e-5)
    assert timed == []
    assert list(ops._KERNEL_CHOICES.values()) == ["conv_nhwc.tc", "conv_nhwc.tc"]


@pytest.mark.parametrize("weight_layout", [torch.contiguous_format, torch.channels_last])
def test_1x1_channels_last_conv2d_can_run_as_a_gemm_on_the_interpreter(weight_layout, monkeypatch):
    """A 1x1 filter at stride 1 without padding (dilated or not) on a channels_last input: the GEMM of
    the Z*H*W x CI pixels by the transposed CO x CI filter (matmul.tc, TRANS_B) is a candidate beside
    conv_nhwc.tc and conv_nhwc_desc.tc; forced, it gives torch's float64 result in channels_last.
    Padding or stride 2 make it no GEMM."""
    timed = _prefer(monkeypatch, ("matmul.tc",))
    x = torch.randn(2, 16, 5, 7).to(memory_format=torch.channels_last)
    w = torch.randn(12, 16, 1, 1).contiguous(memory_format=weight_layout)
    y = ops.conv2d(x, w, dilation=(2, 3))
    assert y.is_contiguous(memory_format=torch.channels_last) and not y.is_contiguous()
    torch.testing.assert_close(y.double(), torch.nn.functional.conv2d(x.double(), w.double()),
                               rtol=1e-5, atol=1e-5)
    assert timed == ["conv_nhwc.tc", "matmul.tc", "conv_nhwc_desc.tc"]
    assert list(ops._KERNEL_CHOICES.values()) == ["matmul.tc"]
    for stride, padding in ((1, 1), (2, 0)):
        timed.clear()
        ref = torch.nn.functional.conv2d(x.double(), w.double(), stride=stride, padding=padding)
        torch.testing.assert_close(ops.conv2d(x, w, stride, padding).double(), ref, rtol=1e-5,
                                   atol=1e-5)
        assert "matmul.tc" not in timed


@gpu
@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-2), (torch.bfloat16, 1e-1),
                                       (torch.float32, 1e-3)])
def test_1x1_channels_last_conv2d_as_a_gemm_on_the_gpu(dtype, tol, monkeypatch):
    """The GEMM route of a 1x1 convolution on the GPU (forced), odd pixel count, against float64."""
    _prefer(monkeypatch, ("matmul.tc",))
    x = torch.randn(3, 96, 17, 13, device="cuda", dtype=dtype).to(memory_format=torch.channels_last)
    w = torch.randn(80, 96, 1, 1, device="cuda", dtype=dtype) / 10
    y = ops.conv2d(x, w)
    torch.testing.assert_close(y.double(), torch.nn.functional.conv2d(x.double(), w.double()),
                               rtol=tol, atol=tol * 10)
    assert list(ops._KERNEL_CHOICES.values()) == ["matmul.tc"]


@gpu
@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-2), (torch.bfloat16, 1e-1)])
@pytest.mark.parametrize("preferred", [("conv_nhwc_desc.tc", "conv_nhwc_desc_dgrad.tc",
                                        "conv_nhwc_desc_wgrad.tc"), ()])
def test_stride_one_channels_last_conv2d_and_descriptor_gradients_on_the_gpu(dtype, tol, preferred,
                                                                             monkeypatch):
    """The descriptor kernels on the GPU (forced, odd image sizes, padding and dilation) and the
    choice by timing (preferred empty: whichever is faster), against float64 torch."""
    if preferred:
        timed = _prefer(monkeypatch, preferred)
    else:
        monkeypatch.setattr(ops, "_KERNEL_CHOICES", {})
    for padding, dilation in (((1, 1), (1, 1)), ((2, 1), (2, 1))):
        _grads(lambda x, w: ops.conv2d(x.to(memory_format=torch.channels_last), w, padding=padding,
                                       dilation=dilation),
               lambda x, w: torch.nn.functional.conv2d(x, w, padding=padding, dilation=dilation),
               (2, 64, 17, 15), (64, 64, 3, 3), dtype=dtype, rtol=tol, atol=tol * 10)
    if preferred:
        assert sorted(set(timed)) == sorted(preferred + ("conv_nhwc.tc", "conv_nhwc_dgrad.tc",
                                                          ops.DGRAD_FORWARD, "conv_nhwc_wgrad.tc"))
        assert set(ops._KERNEL_CHOICES.values()) == set(preferred)


def test_weight_gradient_workspace_is_kept_and_left_zero():
    """The weight gradient's counters and partial sums are allocated once per device and stream and
    reused: each launch leaves them zero, so a second gradient equals the first bit for bit and the
    kept buffers are all zero afterwards (interpreter)."""
    from tritonc.convolution import ConvShape
    shape = ConvShape(2, 12, 9, 7, 6, 3, 3, padding=(1, 1))
    x = torch.randn(2, 12, 9, 7).to(memory_format=torch.channels_last)
    grad = torch.randn(2, 6, shape.p, shape.q).to(memory_format=torch.channels_last)
    first = ops._conv2d_nhwc_wgrad(grad, x, shape, "float").clone()
    kept = {key: buf.data_ptr() for key, buf in ops._ZEROED_WORKSPACES.items()}
    second = ops._conv2d_nhwc_wgrad(grad, x, shape, "float")
    assert torch.equal(first, second)
    assert {key: buf.data_ptr() for key, buf in ops._ZEROED_WORKSPACES.items()} == kept
    assert all(not buf.any() for buf in ops._ZEROED_WORKSPACES.values())


@gpu
@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-3), (torch.float16, 2e-2),
                                       (torch.bfloat16, 1e-1)])
@pytest.mark.parametrize("rs,stride,padding", [((3, 3), (2, 2), (1, 1)), ((1, 1), (2, 2), (0, 0)),
                                               ((3, 2), (1, 2), (2, 0))])
def test_channels_last_conv2d_backward_kernels_on_the_gpu(dtype, tol, rs, stride, padding):
    """conv_nhwc_dgrad.tc and conv_nhwc_wgrad.tc on the GPU (the weight gradient's reduction
    over 2 x 33 x 31 pixels split into slices), odd sizes, against float64 torch."""
    _grads(lambda x, w: ops.conv2d(x.to(memory_format=torch.channels_last), w, stride=stride,
                                   padding=padding),
           lambda x, w: torch.nn.functional.conv2d(x, w, stride=stride, padding=padding),
           (2, 96, 33, 31), (80, 96, *rs), dtype=dtype, rtol=tol, atol=tol * 10)


@gpu
def test_split_k_conv_nhwc_is_exact_and_deterministic():
    """conv_nhwc.tc with SPLIT = 9 (64 x 32 tiles: the Z = 1, 256 @ 8x8 layer of the benchmark) against
    float64, and bit for bit the same in repeated launches: the last slice to arrive adds the partial
    tiles in slice order, whichever it is. The counters are zero again after each launch."""
    from tritonc.convolution import ConvShape
    shape = ConvShape(1, 256, 8, 8, 256, 3, 3, padding=(1, 1))
    x = torch.randn(1, 256, 8, 8, device="cuda", dtype=torch.float16)
    w = torch.randn(256, 256, 3, 3, device="cuda", dtype=torch.float16) / 48
    x_nhwc = x.to(memory_format=torch.channels_last)
    b = w.permute(2, 3, 1, 0).reshape(shape.k, shape.co).contiguous()
    kern = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc.tc", num_warps=4, num_stages=3,
                           defines={"TYPE": "half", "ACC": "float", "TM": 64, "TN": 32, "TK": 64,
                                    "SPLIT": 9})
    partials, counters = shape.nhwc_workspace(64, 32, 9)
    partials = torch.empty(partials, device="cuda", dtype=torch.float32)
    counters = torch.zeros(counters, device="cuda", dtype=torch.int32)
    outs = []
    for _ in range(4):
        y = torch.empty(1, 256, 8, 8, device="cuda", dtype=torch.float16,
                        memory_format=torch.channels_last)
        kern[shape.grid(64, 32, 9)](*shape.nhwc_arguments(
            x_nhwc, b, y, (x_nhwc.stride(0), x_nhwc.stride(2), x_nhwc.stride(3)), b.stride(0),
            (y.stride(0), y.stride(2), y.stride(3)), partials, counters))
        outs.append(y)
    ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
    torch.testing.assert_close(outs[0].double(), ref, rtol=2e-2, atol=2e-2)
    for y in outs[1:]:
        assert torch.equal(y, outs[0])
    assert int(counters.abs().sum()) == 0


@gpu
@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-3), (torch.float16, 2e-2)])
def test_dilated_conv2d_and_its_gradients_against_float64(dtype, tol):
    """conv_nhwc.tc's dilation on the GPU, channels_last and NCHW input."""
    for to_layout in (lambda x: x.to(memory_format=torch.channels_last), lambda x: x):
        _grads(lambda x, w: ops.conv2d(to_layout(x), w, stride=(2, 1), padding=2, dilation=(2, 3)),
               lambda x, w: torch.nn.functional.conv2d(x, w, stride=(2, 1), padding=2,
                                                       dilation=(2, 3)),
               (2, 32, 19, 17), (24, 32, 3, 3), dtype=dtype, rtol=tol, atol=tol * 10)


@gpu
def test_transpose_and_its_gradient():
    _grads(ops.transpose, lambda x: x.t(), (70, 45), rtol=0, atol=0)
