#!/usr/bin/env python3
"""Writes conv_nhwc_tma*.tir: a forward NHWC convolution in GPU-level IR whose operand tiles are bulk
tensor copies (TMA), for issue 28's comparison of tensor copies with the cp.async gathers of
kernels/conv_nhwc.tc.

    python3 tests/kernels/gpuir/gen_conv_nhwc_tma.py            # rewrites the committed files
    python3 tests/kernels/gpuir/gen_conv_nhwc_tma.py --tile 2,8,8 --tn 128 --stride 2,2 -o k.tir

The kernel (one M x TN tile of the implicit GEMM per program, M = TZ * TP * TQ output pixels):

  * A, the input image X (Z x H x W x CI, channels contiguous), is read through a 4-D tensor map
    whose box is TZ images x TP rows x TQ columns x 64 channels, with the convolution's stride as the
    traversal stride of the row and column dimensions. One copy at (z0, p0 * stride_h - pad_h + r *
    dil_h, q0 * stride_w - pad_w + s * dil_w, c0) fetches exactly the A tile of k-step (r, s, c0):
    the box lands as M rows of 64 channels, which is the [M, 64] wgmma operand slot (128-byte
    swizzle). Padding is the copy engine's zero fill of coordinates outside the image, negative
    ones included, and so are the channels past CI of the last channel block.
  * B, the filter as (R*S) x CI x CO (the (R*S*CI) x CO matrix of conv_nhwc.tc with its rows split
    into (tap, channel)), is read through a 3-D map, one [64, 64] box per 64 output channels, each
    with its own wgmma (N = 64) and accumulator. With --b-major k the filter is CO x (R*S) x CI
    instead (PyTorch's channels_last weight): one box of TN output channels by 64 input channels lands
    in a column-major [64, TN] slot (K-major B), and one wgmma of N = TN reads it.
  * The k-steps (tap, channel block) fill a ring of STAGES slots, each with its mbarrier, STAGES - 1
    steps ahead; wgmma multiplies from the slots (use_acc false on the first step) and keeps one
    group in flight, so that the slot the retired group read is refilled after a barrier (the
    structure of matmul_tma_wgmma.tir).
  * The epilogue converts the f32 accumulators to the element type (f16, or bf16 with --dtype) and
    stores them with masks z < Z, p < P, q < Q, co < CO; with --store tma it stages each 64-channel
    block in a slot of A's ring instead and writes it with a 4-D bulk tensor store, which the copy
    engine clips at Z, P, Q and CO.

The traversal strides are constants of the tensor map, so the convolution's stride is baked into the
file (--stride); padding, dilation, sizes and strides of the tensors are parameters. Requirements:
CI, and the row strides of X, the filter and Y, multiples of 8 elements (16-byte tensor map strides),
16-byte aligned tensors; TP * stride_h and TQ * stride_w at most 256.

Parameters: X, Wt, Y, Z, H, W, CI, CO, R, S, P, Q, pad_h, pad_w, dil_h, dil_w, ldx_z, ldx_h, ldx_w
(strides of X in elements), ldw_tap, ldw_ci (of the filter; ldw_co, ldw_tap with --b-major k), ldy_z,
ldy_p, ldy_q (of Y).
Grid: (cdiv(Z, TZ) * cdiv(P, TP) * cdiv(Q, TQ), cdiv(CO, TN)); warps as written in the header.
"""
import argparse
import math
from pathlib import Path

TK = 64  # channels per k-step: one 128-byte swizzle row of 16-bit elements

HERE = Path(__file__).resolve().parent
# The committed configurations: (tile (TZ, TP, TQ), TN, warps, stages, stride) -> file name.
COMMITTED = {
    "conv_nhwc_tma_128x128.tir": dict(tile=(1, 8, 16), tn=128, warps=8, stages=4, stride=(1, 1)),
    "conv_nhwc_tma_128x256.tir": dict(tile=(1, 8, 16), tn=256, warps=8, stages=4, stride=(1, 1)),
    "conv_nhwc_tma_128x256_kmajor.tir": dict(tile=(1, 8, 16), tn=256, warps=8, stages=4, stride=(1, 1),
                                             b_major="k"),
}


def grid(cfg, z, p, q, co):
    tz, tp, tq = cfg["tile"]
    return (math.ceil(z / tz) * math.ceil(p / tp) * math.ceil(q / tq), math.ceil(co / cfg["tn"]))


def store_tma(emit, ty, tile, nb, stages):
    """The epilogue as bulk tensor stores: each 64-channel block of the accumulator goes (in the element
    type) to a slot of A's ring, free once every warpgroup's last wgmma has retired, and one 4-D copy
    writes it to Y at (z0, p0, q0, n); the copy engine clips the box at Z, P, Q and CO. A slot is written
    again only after the store that read it (tma_store_wait, then a barrier: only thread 0 waits)."""
    tz, tp, tq = tile
    m = tz * tp * tq
    emit("  ; the ring's slots are free once every warpgroup has passed its last wgmma_wait")
    emit("  barrier")
    emit("  %ldyz = sext %ldy_z : i64")
    emit("  %ldyp = sext %ldy_p : i64")
    emit("  %ldyq = sext %ldy_q : i64")
    emit(f"  %dy = make_tensor_desc %Y, [%Z, %P, %Q, %CO], [%ldyz, %ldyp, %ldyq, i64 1] : "
         f"tdesc<{ty}<{tz},{tp},{tq},64>>")
    for j in range(nb):
        if j >= stages:
            emit("  tma_store_wait 0")
            emit("  barrier")
        emit(f"  %ys{j} = smem_slot %ra, i32 {j % stages} : smem<{ty}<{m},64>, #sw>")
        emit(f"  %yv{j} = fptrunc %acc{j} : {ty}<{m},64, #acc>")
        emit(f"  local_store %ys{j}, %yv{j}")
        emit("  fence_proxy_async")
        emit("  barrier")
        emit(f"  tma_store %dy, [%z0, %p0, %q0, %n{j}], %ys{j}")
    emit("  tma_store_wait 0")


def store_masked(emit, ty, tile, nb, width=64):
    """The epilogue as st.global of each thread's accumulator elements, masked by z < Z, p < P, q < Q and
    co < CO: accumulators acc0 .. acc{nb-1} of `width` channels each, from n0, n1, ..."""
    tz, tp, tq = tile
    m = tz * tp * tq
    lq, lpq = int(math.log2(tq)), int(math.log2(tp * tq))
    emit("  ; rows (z, p, q) of the tile, q fastest; masks z < Z, p < P, q < Q")
    emit(f"  %rr = make_range 0, {m} : i32<{m}>")
    vec = f"i32<{m}>"

    def splat(name, scalar):
        emit(f"  %{name} = splat {scalar} : {vec}")

    splat("tqm", f"i32 {tq - 1}")
    splat("tpm", f"i32 {tp - 1}")
    splat("lq", f"i32 {lq}")
    splat("lpq", f"i32 {lpq}")
    emit(f"  %qi = and %rr, %tqm : {vec}")
    emit(f"  %rq = lshr %rr, %lq : {vec}")
    emit(f"  %pi = and %rq, %tpm : {vec}")
    emit(f"  %zi = lshr %rr, %lpq : {vec}")
    for axis, first, bound, ld in (("q", "q0", "Q", "ldy_q"), ("p", "p0", "P", "ldy_p"),
                                   ("z", "z0", "Z", "ldy_z")):
        splat(f"{axis}0s", f"%{first}")
        emit(f"  %{axis}y = add %{axis}i, %{axis}0s : {vec}")
        splat(f"{bound}s", f"%{bound}")
        emit(f"  %in{axis} = icmp slt %{axis}y, %{bound}s : i1<{m}>")
        splat(f"{ld}s", f"%{ld}")
        emit(f"  %off{axis} = mul %{axis}y, %{ld}s : {vec}")
    emit(f"  %inqp = and %inq, %inp : i1<{m}>")
    emit(f"  %inrow = and %inqp, %inz : i1<{m}>")
    emit(f"  %offqp = add %offq, %offp : {vec}")
    emit(f"  %offrow = add %offqp, %offz : {vec}")
    emit(f"  %offrow2 = reshape %offrow : i32<{m},1>")
    emit(f"  %inrow2 = reshape %inrow : i1<{m},1>")
    emit(f"  %inrowb = broadcast %inrow2 : i1<{m},{width}>")
    emit(f"  %ybase = splat %Y : {ty}*<{m},1>")
    emit(f"  %yrow = gep %ybase, %offrow2 : {ty}*<{m},1>")
    emit(f"  %yrowb = broadcast %yrow : {ty}*<{m},{width}>")
    emit(f"  %rc = make_range 0, {width} : i32<{width}>")
    emit(f"  %COs = splat %CO : i32<1,{width}>")
    for j in range(nb):
        emit(f"  ; output channels n{j} .. n{j} + {width - 1}")
        emit(f"  %n{j}s = splat %n{j} : i32<{width}>")
        emit(f"  %co{j} = add %rc, %n{j}s : i32<{width}>")
        emit(f"  %co{j}r = reshape %co{j} : i32<1,{width}>")
        emit(f"  %inc{j} = icmp slt %co{j}r, %COs : i1<1,{width}>")
        emit(f"  %incb{j} = broadcast %inc{j} : i1<{m},{width}>")
        emit(f"  %mask{j} = and %inrowb, %incb{j} : i1<{m},{width}>")
        emit(f"  %cob{j} = broadcast %co{j}r : i32<{m},{width}>")
        emit(f"  %py{j} = gep %yrowb, %cob{j} : {ty}*<{m},{width}>")
        emit(f"  %pyw{j} = convert_layout %py{j} : {ty}*<{m},{width}, #acc>")
        emit(f"  %maskw{j} = convert_layout %mask{j} : i1<{m},{width}, #acc>")
        emit(f"  %yv{j} = fptrunc %acc{j} : {ty}<{m},{width}, #acc>")
        emit(f"  masked_store %pyw{j}, %yv{j}, %maskw{j}")


def generate(tile, tn, warps, stages, stride, dtype="f16", store="st", b_major="n"):
    tz, tp, tq = tile
    ty = dtype
    assert ty in ("f16", "bf16") and store in ("st", "tma") and b_major in ("n", "k")
    assert not (b_major == "k" and store == "tma"), "the TMA store epilogue splits the tile in 64 channels"
    kmajor = b_major == "k"
    sh, sw = stride
    m = tz * tp * tq
    nb = tn // 64
    for v in (tz, tp, tq):
        assert v & (v - 1) == 0, "tile dimensions must be powers of two"
    assert m % 64 == 0 and tn % 64 == 0 and warps in (4, 8) and stages >= 2
    assert m % (16 * warps) == 0, "the wgmma tile needs M a multiple of 16 * warps"
    assert tp * sh <= 256 and tq * sw <= 256
    bytes_per_stage = (m + 64 * nb) * TK * 2
    # N-major B: nb [64, 64] slots per stage, one accumulator and wgmma per 64 output channels. K-major B
    # (the filter CO x (R*S) x CI, PyTorch's channels_last weight): one column-major [64, TN] slot, whose
    # memory rows are output channels, and one wgmma of N = TN.
    chunks, width = (1, tn) if kmajor else (nb, 64)
    a_slot = f"smem<{ty}<{m},64>, #sw>"
    b_slot = f"smem<{ty}<64,{tn}>, #swk>" if kmajor else f"smem<{ty}<64,64>, #sw>"
    acc = f"f32<{m},{width}, #acc>"
    traversal = f", [i32 1, i32 {sh}, i32 {sw}, i32 1]" if (sh, sw) != (1, 1) else ""
    L = []
    emit = L.append

    def issue(sfx, kk, slot):
        """Copies k-step kk (tap, channel block) into ring slot `slot`, signalling its mbarrier."""
        emit(f"  %tap{sfx} = sdiv {kk}, %cblocks : i32")
        emit(f"  %tapc{sfx} = mul %tap{sfx}, %cblocks : i32")
        emit(f"  %cb{sfx} = sub {kk}, %tapc{sfx} : i32")
        emit(f"  %c0{sfx} = shl %cb{sfx}, i32 6 : i32")
        emit(f"  %r{sfx} = sdiv %tap{sfx}, %S : i32")
        emit(f"  %rs{sfx} = mul %r{sfx}, %S : i32")
        emit(f"  %s{sfx} = sub %tap{sfx}, %rs{sfx} : i32")
        emit(f"  %dh{sfx} = mul %r{sfx}, %dil_h : i32")
        emit(f"  %h{sfx} = add %h0, %dh{sfx} : i32")
        emit(f"  %dw{sfx} = mul %s{sfx}, %dil_w : i32")
        emit(f"  %w{sfx} = add %w0, %dw{sfx} : i32")
        emit(f"  %sa{sfx} = smem_slot %ra, {slot} : {a_slot}")
        emit(f"  %bar{sfx} = smem_slot %bars, {slot} : smem<i64<1>>")
        emit(f"  mbarrier_expect_tx %bar{sfx}, {bytes_per_stage}")
        emit(f"  tma_load %da, [%z0, %h{sfx}, %w{sfx}, %c0{sfx}], %sa{sfx}, %bar{sfx}")
        if kmajor:
            emit(f"  %sb{sfx} = smem_slot %rb, {slot} : {b_slot}")
            emit(f"  tma_load %db, [%nc0, %tap{sfx}, %c0{sfx}], %sb{sfx}, %bar{sfx}")
        else:
            emit(f"  %bs{sfx} = mul {slot}, i32 {nb} : i32")
        for j in range(0 if kmajor else nb):
            emit(f"  %bs{sfx}_{j} = add %bs{sfx}, i32 {j} : i32")
            emit(f"  %sb{sfx}_{j} = smem_slot %rb, %bs{sfx}_{j} : {b_slot}")
            emit(f"  tma_load %db, [%tap{sfx}, %c0{sfx}, %n{j}], %sb{sfx}_{j}, %bar{sfx}")
        emit(f"  mbarrier_arrive %bar{sfx}")

    emit(f"; GENERATED by tests/kernels/gpuir/gen_conv_nhwc_tma.py (--tile {tz},{tp},{tq} --tn {tn} "
         f"--warps {warps} --stages {stages} --stride {sh},{sw}"
         + (f" --dtype {ty}" if ty != "f16" else "") + (" --store tma" if store == "tma" else "")
         + (" --b-major k" if kmajor else "")
         + "); do not edit.")
    emit(f"; Forward NHWC convolution ({ty} in, f32 accumulation, {ty} out), stride {sh} x {sw}: one "
         f"{m} x {tn} tile of the")
    emit(f"; implicit GEMM per program ({tz} image(s) x {tp} x {tq} output pixels by {tn} output "
         "channels). A is one 4-D")
    emit("; bulk tensor copy per k-step (tap, 64 channels) with the stride as traversal stride and "
         "padding as the")
    emit("; copy engine's zero fill; B is the filter (R*S) x CI x CO in [64, 64] boxes. See the "
         "generator's docstring.")
    emit("; Grid: (cdiv(Z, %d) * cdiv(P, %d) * cdiv(Q, %d), cdiv(CO, %d)), %d warps (--num-warps=%d)."
         % (tz, tp, tq, tn, warps, warps))
    emit(f"; warps: {warps}")
    emit("; arch: sm_90a")
    emit(f"#acc = #wgmma<warps_per_cta=[{warps},1], instr_shape=[64,{width},16]>")
    emit("#sw = #shared<swizzle=128, order=[1,0]>")
    if kmajor:
        emit("#swk = #shared<swizzle=128, order=[0,1]>")
    emit(f"define kernel void @conv_nhwc_tma({ty}* %X readonly aligned(16), {ty}* %Wt readonly aligned(16), "
         f"{ty}* %Y writeonly, i32 %Z, i32 %H, i32 %W, i32 %CI, i32 %CO, i32 %R, i32 %S, i32 %P, i32 %Q, "
         "i32 %pad_h, i32 %pad_w, i32 %dil_h, i32 %dil_w, i32 %ldx_z, i32 %ldx_h, i32 %ldx_w, "
         + ("i32 %ldw_co, i32 %ldw_tap" if kmajor else "i32 %ldw_tap, i32 %ldw_ci")
         + ", i32 %ldy_z, i32 %ldy_p, i32 %ldy_q) {")
    emit("entry:")
    emit("  ; the program's tile: images z0.., output rows p0.., columns q0.., channels nc0..")
    emit("  %pid = get_program_id 0 : i32")
    emit("  %pn = get_program_id 1 : i32")
    emit(f"  %Q1 = add %Q, i32 {tq - 1} : i32")
    emit(f"  %nqb = sdiv %Q1, i32 {tq} : i32")
    emit(f"  %P1 = add %P, i32 {tp - 1} : i32")
    emit(f"  %npb = sdiv %P1, i32 {tp} : i32")
    emit("  %qb = srem %pid, %nqb : i32")
    emit("  %zp = sdiv %pid, %nqb : i32")
    emit("  %pb = srem %zp, %npb : i32")
    emit("  %zb = sdiv %zp, %npb : i32")
    emit(f"  %z0 = mul %zb, i32 {tz} : i32")
    emit(f"  %p0 = mul %pb, i32 {tp} : i32")
    emit(f"  %q0 = mul %qb, i32 {tq} : i32")
    emit(f"  %nc0 = mul %pn, i32 {tn} : i32")
    for j in range(chunks):
        emit(f"  %n{j} = add %nc0, i32 {width * j} : i32")
    emit("  ; input pixel of the tile's first output pixel at r = s = 0 (negative: padding)")
    emit(f"  %ph = mul %p0, i32 {sh} : i32")
    emit("  %h0 = sub %ph, %pad_h : i32")
    emit(f"  %qw = mul %q0, i32 {sw} : i32")
    emit("  %w0 = sub %qw, %pad_w : i32")
    emit("  ; k-steps: R * S taps times cdiv(CI, 64) channel blocks")
    emit("  %CI63 = add %CI, i32 63 : i32")
    emit("  %cblocks = sdiv %CI63, i32 64 : i32")
    emit("  %RS = mul %R, %S : i32")
    emit("  %nk = mul %RS, %cblocks : i32")
    emit("  %ldxz = sext %ldx_z : i64")
    emit("  %ldxh = sext %ldx_h : i64")
    emit("  %ldxw = sext %ldx_w : i64")
    emit("  %ldwt = sext %ldw_tap : i64")
    emit("  %ldwo = sext %ldw_co : i64" if kmajor else "  %ldwc = sext %ldw_ci : i64")
    emit(f"  %da = make_tensor_desc %X, [%Z, %H, %W, %CI], [%ldxz, %ldxh, %ldxw, i64 1]{traversal} "
         f": tdesc<{ty}<{tz},{tp},{tq},64>>")
    if kmajor:
        emit(f"  %db = make_tensor_desc %Wt, [%CO, %RS, %CI], [%ldwo, %ldwt, i64 1] : tdesc<{ty}<{tn},1,64>>")
    else:
        emit(f"  %db = make_tensor_desc %Wt, [%RS, %CI, %CO], [%ldwt, %ldwc, i64 1] : tdesc<{ty}<1,64,64>>")
    emit(f"  %ra = smem_alloc : smem<{stages} x {ty}<{m},64>, #sw>")
    if kmajor:
        emit(f"  %rb = smem_alloc : smem<{stages} x {ty}<64,{tn}>, #swk>")
    else:
        emit(f"  %rb = smem_alloc : smem<{stages * nb} x {ty}<64,64>, #sw>")
    emit(f"  %bars = smem_alloc : smem<{stages} x i64<1>>")
    for s in range(stages):
        emit(f"  %bar_{s} = smem_slot %bars, i32 {s} : smem<i64<1>>")
    for s in range(stages):
        emit(f"  mbarrier_init %bar_{s}, 1")
    emit(f"  %npre = smin %nk, i32 {stages - 1} : i32")
    emit("  br ^prologue")
    emit("prologue:")
    emit(f"  ; k-steps 0 .. {stages - 2} into slots 0 .. {stages - 2}")
    emit("  %j = phi [i32 0, ^entry], [%j1, ^prefill] : i32")
    emit("  %pre = icmp slt %j, %npre : i1")
    emit("  cond_br %pre, ^prefill, ^start")
    emit("prefill:")
    issue("p", "%j", "%j")
    emit("  %j1 = add %j, i32 1 : i32")
    emit("  br ^prologue")
    emit("start:")
    emit(f"  %zero = splat f32 0 : {acc}")
    emit("  br ^loop")
    emit("loop:")
    emit("  %it = phi [i32 0, ^start], [%it1, ^latch] : i32")
    for j in range(chunks):
        emit(f"  %acc{j} = phi [%zero, ^start], [%d{j}, ^latch] : {acc}")
    emit("  %more = icmp slt %it, %nk : i1")
    emit("  cond_br %more, ^body, ^exit")
    emit("body:")
    emit(f"  ; k-step it has landed in slot it % {stages}: the phase of parity (it / {stages}) & 1 has "
         "completed")
    emit(f"  %cs = urem %it, i32 {stages} : i32")
    emit(f"  %ca = smem_slot %ra, %cs : {a_slot}")
    emit("  %cbar = smem_slot %bars, %cs : smem<i64<1>>")
    emit(f"  %round = udiv %it, i32 {stages} : i32")
    emit("  %phase = and %round, i32 1 : i32")
    emit("  mbarrier_wait %cbar, %phase")
    emit("  %use = icmp sgt %it, i32 0 : i1")
    if kmajor:
        emit(f"  %cb0 = smem_slot %rb, %cs : {b_slot}")
        emit("  wgmma_fence")
        emit(f"  %d0 = wgmma %ca, %cb0, %acc0, %use : {acc}")
    else:
        emit(f"  %cbs = mul %cs, i32 {nb} : i32")
        emit("  wgmma_fence")
    for j in range(0 if kmajor else nb):
        emit(f"  %cbs{j} = add %cbs, i32 {j} : i32")
        emit(f"  %cb{j} = smem_slot %rb, %cbs{j} : {b_slot}")
        emit(f"  %d{j} = wgmma %ca, %cb{j}, %acc{j}, %use : {acc}")
    emit("  wgmma_commit")
    emit("  ; the group of k-step it - 1 is retired: its slot is free once every warp has passed its wait")
    emit("  wgmma_wait 1")
    emit("  barrier")
    emit("  %it1 = add %it, i32 1 : i32")
    emit(f"  %itn = add %it, i32 {stages - 1} : i32")
    emit("  %fill = icmp slt %itn, %nk : i1")
    emit("  cond_br %fill, ^refill, ^latch")
    emit("refill:")
    emit(f"  %ns = urem %itn, i32 {stages} : i32")
    issue("n", "%itn", "%ns")
    emit("  br ^latch")
    emit("latch:")
    emit("  br ^loop")
    emit("exit:")
    emit("  wgmma_wait 0")
    if store == "tma":
        store_tma(emit, ty, tile, nb, stages)
    else:
        store_masked(emit, ty, tile, chunks, width)
    emit("  ret")
    emit("}")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tile", help="TZ,TP,TQ (output pixels per program; powers of two)")
    ap.add_argument("--tn", type=int, default=128, help="output channels per program (multiple of 64)")
    ap.add_argument("--warps", type=int, default=8)
    ap.add_argument("--stages", type=int, default=4)
    ap.add_argument("--stride", default="1,1", help="stride_h,stride_w (baked into the tensor map)")
    ap.add_argument("--dtype", choices=["f16", "bf16"], default="f16")
    ap.add_argument("--store", choices=["st", "tma"], default="st",
                    help="epilogue: masked st.global, or bulk tensor stores")
    ap.add_argument("--b-major", choices=["n", "k"], default="n",
                    help="the filter as (R*S) x CI x CO (n) or CO x (R*S) x CI (k, one wgmma of N = TN)")
    ap.add_argument("-o", "--output", help="file to write (default: rewrite the committed files)")
    args = ap.parse_args()
    if args.tile is None:
        for name, cfg in COMMITTED.items():
            (HERE / name).write_text(generate(**cfg))
        return
    text = generate(tuple(int(v) for v in args.tile.split(",")), args.tn, args.warps, args.stages,
                    tuple(int(v) for v in args.stride.split(",")), args.dtype, args.store, args.b_major)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
