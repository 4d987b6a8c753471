import torch, torch.nn.functional as F
torch.backends.cudnn.benchmark = True
for shape in [(32, 256, 256, 56, 56), (32, 256, 256, 32, 32), (1, 256, 256, 8, 8)]:
    z, ci, co, h, w = shape
    x = torch.randn(z, ci, h, w, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    wt = torch.randn(co, ci, 3, 3, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    for _ in range(3): F.conv2d(x, wt, padding=1)
    torch.cuda.synchronize()
m, n, k = 100352, 256, 2304
a = torch.randn(m, k, device="cuda", dtype=torch.float16); b = torch.randn(k, n, device="cuda", dtype=torch.float16)
for _ in range(3): a @ b
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16); b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
for _ in range(3): a @ b
torch.cuda.synchronize()
