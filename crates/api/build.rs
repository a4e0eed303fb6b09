//! Compiles proto/ with the vendored protoc (no system protoc needed) and writes a file
//! descriptor set for gRPC server reflection.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::var_os("PROTOC").is_none() {
        // SAFETY of intent: build scripts are single-threaded; set before protoc runs.
        unsafe { std::env::set_var("PROTOC", protoc_bin_vendored::protoc_bin_path()?) };
    }
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let files: Vec<PathBuf> = [
        "colosseum/v1/colosseum.proto",
        "colosseum/v1/games.proto",
        "colosseum/v1/lobby.proto",
        "colosseum/v1/tournaments.proto",
        "colosseum/v1/tournament_view.proto",
        "colosseum/internal/v1/engine.proto",
        "colosseum/internal/v1/tenants.proto",
    ]
    .iter()
    .map(|f| root.join(f))
    .collect();
    tonic_prost_build::configure()
        .file_descriptor_set_path(out.join("colosseum_descriptor.bin"))
        .compile_protos(&files, std::slice::from_ref(&root))?;
    println!("cargo:rerun-if-changed={}", root.display());
    Ok(())
}
