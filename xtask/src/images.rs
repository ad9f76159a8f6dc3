//! `cargo xtask images` and `images-check`: the kept machine code in `images/`, assembled from the
//! kept PTX in `ptx/` by the pinned `ptxas` release.

use std::fs;
use std::path::{Path, PathBuf};

use tcgemm_build::images::{
    all_images, assemble, compress, decompress, fnv1a64, image_file, ptxas_release, Manifest,
    MANIFEST, PINNED_PTXAS,
};
use tcgemm_build::{find_ptxas, write_if_changed, Target};
use tcgemm_kernels::machine_code::Sm;

use crate::kept_path;

/// The pinned `ptxas`, or an error saying how to get it.
fn pinned_ptxas() -> Result<PathBuf, String> {
    let ptxas = find_ptxas().ok_or_else(|| {
        format!("no ptxas found: `pip install nvidia-cuda-nvcc-cu12=={PINNED_PTXAS}` or set PTXAS")
    })?;
    let release = ptxas_release(&ptxas).map_err(|e| e.to_string())?;
    if release != PINNED_PTXAS {
        return Err(format!(
            "`{}` is ptxas {release}; the kept images are assembled with {PINNED_PTXAS} \
             (`pip install nvidia-cuda-nvcc-cu12=={PINNED_PTXAS}`, or point PTXAS at it)",
            ptxas.display()
        ));
    }
    Ok(ptxas)
}

/// Every image assembled from the kept PTX, two `ptxas` at a time (the build machines have 2 cores).
fn assemble_all(root: &Path) -> Result<Vec<(Target, Sm, Vec<u8>)>, String> {
    let ptxas = pinned_ptxas()?;
    let jobs = all_images();
    let results: Vec<Result<Vec<u8>, String>> = std::thread::scope(|s| {
        let mut out = Vec::new();
        for pair in jobs.chunks(2) {
            let handles: Vec<_> = pair
                .iter()
                .map(|&(t, sm)| {
                    let (ptxas, ptx) = (&ptxas, kept_path(root, t));
                    s.spawn(move || assemble(ptxas, &ptx, sm).map_err(|e| e.to_string()))
                })
                .collect();
            for h in handles {
                out.push(
                    h.join()
                        .unwrap_or_else(|_| Err("ptxas thread panicked".into())),
                );
            }
        }
        out
    });
    jobs.into_iter()
        .zip(results)
        .map(|((t, sm), r)| r.map(|cubin| (t, sm, cubin)))
        .collect()
}

fn ptx_hash(root: &Path, t: Target) -> Result<u64, String> {
    let path = kept_path(root, t);
    fs::read(&path)
        .map(|b| fnv1a64(&b))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// `cargo xtask images`: assemble and write `images/`.
pub fn cmd_images(root: &Path) -> Result<(), String> {
    let dir = root.join("images");
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut manifest = Manifest {
        ptxas: PINNED_PTXAS.to_string(),
        images: Vec::new(),
    };
    for (t, sm, cubin) in assemble_all(root)? {
        let file = image_file(t, sm);
        let packed = compress(&cubin);
        let changed = write_if_changed(&dir.join(&file), &packed).map_err(|e| e.to_string())?;
        println!(
            "images/{file}: {} bytes of machine code, {} compressed ({})",
            cubin.len(),
            packed.len(),
            if changed { "updated" } else { "unchanged" }
        );
        manifest
            .images
            .push((file, t.ptx_file().to_string(), ptx_hash(root, t)?));
    }
    write_if_changed(&dir.join(MANIFEST), manifest.render().as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// `cargo xtask images-check`: fails when `images/` does not hold exactly what the pinned `ptxas`
/// makes of the kept PTX.
pub fn cmd_images_check(root: &Path) -> Result<(), String> {
    let dir = root.join("images");
    let text = fs::read_to_string(dir.join(MANIFEST))
        .map_err(|e| format!("images/{MANIFEST}: {e} (run `cargo xtask images`)"))?;
    let manifest = Manifest::parse(&text)?;
    let mut stale = Vec::new();
    if manifest.ptxas != PINNED_PTXAS {
        stale.push(format!("{MANIFEST} names ptxas {}", manifest.ptxas));
    }
    for (t, sm, cubin) in assemble_all(root)? {
        let file = image_file(t, sm);
        let kept = fs::read(dir.join(&file))
            .map_err(|e| e.to_string())
            .and_then(|b| decompress(&b));
        let fresh_hash = ptx_hash(root, t)?;
        match kept {
            Ok(k) if k == cubin && manifest.ptx_hash(&file) == Some(fresh_hash) => {
                println!("images/{file}: up to date");
            }
            Ok(_) => stale.push(format!("images/{file} differs from ptxas's output")),
            Err(e) => stale.push(format!("images/{file}: {e}")),
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\nrun `cargo xtask images` and commit images/",
            stale.join("\n")
        ))
    }
}
