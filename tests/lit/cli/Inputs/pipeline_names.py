"""The pass names of the GPU pipeline, one a line, from either side of a comparison.

  pipeline_names.py --doc ARCHITECTURE.md TARGET   the lists docs/ARCHITECTURE.md shows for TARGET
                                                   (its "<target>:" and "per function:" lines in the
                                                   block under "The pipeline as one list")
  pipeline_names.py --printed < print-pipeline     what `tritonc compile --print-pipeline` prints

Both print "module: NAME" for each back-end pass on the module and "function: NAME" for each step per
function, in order, so that a diff of the two shows where the document and the code differ.
"""
import re
import sys
import textwrap


def from_doc(path, target):
    text = open(path, encoding="utf-8").read()
    section = text.split("### The pipeline as one list", 1)[1].split("\n#", 1)[0]
    # The block is indented as a list item's; an entry starts with "<label>:" at the block's left
    # edge, lines indented further continue it.
    block = textwrap.dedent(section.split("```", 2)[1].split("\n", 1)[1])
    entries, label = {}, None
    for line in block.splitlines():
        m = re.match(r"^(\S[^:]*):(.*)$", line)
        if m:
            label = m.group(1).strip()
            entries[label] = m.group(2)
        elif label and line.strip():
            entries[label] += " " + line
    for kind, label in (("module", target), ("function", "per function")):
        if label not in entries:
            sys.exit(f"no '{label}:' line in the pipeline block of {path}")
        # Names are separated by ", "; the commas inside a name's braces have no space after them.
        for name in entries[label].split():
            print(f"{kind}: {name.rstrip(',')}")


def from_printed(stream):
    kind = None
    for line in stream:
        if line.startswith("back end, on the module"):
            kind = "module"
        elif line.startswith("back end, per function"):
            kind = "function"
        elif not line.startswith(" "):
            kind = None
        elif kind:
            print(f"{kind}: {line.split()[0]}")


if sys.argv[1] == "--doc":
    from_doc(sys.argv[2], sys.argv[3])
else:
    from_printed(sys.stdin)
