"""Generates the Python client of Colosseum's gRPC API from proto/ with grpcio-tools.

    python tests/python/generate.py [OUT_DIR]     (default: tests/python/build)

Writes colosseum/v1/*_pb2.py, *_pb2_grpc.py and *.pyi under OUT_DIR (not committed): put
OUT_DIR on sys.path and `from colosseum.v1 import colosseum_pb2, colosseum_pb2_grpc` (and
`lobby_pb2`, `lobby_pb2_grpc` for LobbyService). Every file of the public API (package
colosseum.v1) is generated: proto/colosseum/internal is for the services themselves.
"""

import pathlib
import shutil
import sys

from grpc_tools import protoc
import grpc_tools

HERE = pathlib.Path(__file__).resolve().parent
PROTO = HERE.parent.parent / "proto"


def main() -> int:
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "build"
    gen = out / "colosseum"
    if gen.exists():
        shutil.rmtree(gen)
    out.mkdir(parents=True, exist_ok=True)
    files = sorted(str(p.relative_to(PROTO)) for p in (PROTO / "colosseum" / "v1").glob("*.proto"))
    if not files:
        print(f"no .proto files under {PROTO}/colosseum/v1", file=sys.stderr)
        return 1
    # grpcio-tools ships the well-known types (google/protobuf/*.proto) in its own folder.
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO}",
        f"-I{well_known}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *files,
    ]
    code = protoc.main(args)
    if code != 0:
        print(f"protoc failed ({code}): {' '.join(args)}", file=sys.stderr)
        return code
    print(f"generated {len(files)} files of proto/colosseum/v1 into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
