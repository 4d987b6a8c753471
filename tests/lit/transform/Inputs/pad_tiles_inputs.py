"""Inputs of pad-tiles.test: random matrices and zeroed outputs, written as .npy files into argv[1]."""
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(7)
np.save(f"{out}/x.npy", rng.uniform(-4, 4, size=(10, 64)).astype(np.float32))
np.save(f"{out}/y.npy", np.zeros((10, 64), dtype=np.float32))
np.save(f"{out}/xl.npy", rng.uniform(-4, 4, size=(3, 1536)).astype(np.float32))
np.save(f"{out}/yl.npy", np.zeros((3, 1536), dtype=np.float32))
for name, n in [("r0", 16), ("r1", 16), ("r2", 16), ("colsum", 64), ("total", 1), ("pmin", 2)]:
    np.save(f"{out}/{name}.npy", np.zeros(n, dtype=np.float32))
np.save(f"{out}/cnt.npy", np.zeros(96, dtype=np.int32))
np.save(f"{out}/ma.npy", rng.uniform(-1, 1, size=(40, 50)).astype(np.float32))
np.save(f"{out}/mb.npy", rng.uniform(-1, 1, size=(50, 40)).astype(np.float32))
np.save(f"{out}/mc.npy", np.zeros((40, 40), dtype=np.float32))
