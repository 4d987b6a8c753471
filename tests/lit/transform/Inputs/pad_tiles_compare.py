"""Compares the named output arrays of two runs (argv[1], argv[2]): prints 'same' or what differs."""
import sys

import numpy as np

a, b, names = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = [n for n in names
       if not np.allclose(np.load(f"{a}/{n}.npy"), np.load(f"{b}/{n}.npy"), rtol=1e-6, atol=1e-6)]
print(f"differ: {bad}" if bad else "same")
