//! Machine-code images: each PTX module assembled by `ptxas` for the architectures of
//! [`machine_code`], kept deflate-compressed in the repository's `images/` beside a manifest that
//! ties each image to the exact PTX it was assembled from (so a build whose PTX differs never embeds
//! stale machine code) and to the `ptxas` release that made it.
//!
//! ```
//! use tcgemm_build::images::{image_file, Manifest};
//! use tcgemm_build::Target;
//! use tcgemm_kernels::machine_code::Sm;
//! assert_eq!(image_file(Target::Sm80, Sm::new(8, 6)), "tcgemm_sm80.sm_86.cubin.deflate");
//! let m = Manifest::parse("ptxas 12.9.86\ntcgemm_sm80.sm_86.cubin.deflate tcgemm_sm80.ptx 00000000000000ff\n").unwrap();
//! assert_eq!(m.ptx_hash("tcgemm_sm80.sm_86.cubin.deflate"), Some(255));
//! ```

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use tcgemm_kernels::config::Target;
use tcgemm_kernels::machine_code::{machine_code, Sm};

use crate::ptxas::PtxasError;

/// The `ptxas` release the kept images are assembled with (from the pip wheel
/// `nvidia-cuda-nvcc-cu12==12.9.86`). Its cubins load on every driver of the CUDA 12 and 13 series
/// (≥ 525); a newer `ptxas` would raise that floor.
pub const PINNED_PTXAS: &str = "12.9.86";

/// Name of the manifest in `images/`.
pub const MANIFEST: &str = "MANIFEST";

/// File name of the compressed machine code of module `t` for `sm`.
pub fn image_file(t: Target, sm: Sm) -> String {
    let stem = t.ptx_file().trim_end_matches(".ptx");
    format!("{stem}.{sm}.cubin.deflate")
}

/// File name of a compressed PTX module (embedded by the library's build script).
pub fn ptx_image_file(t: Target) -> String {
    format!("{}.deflate", t.ptx_file())
}

/// Every (module, architecture) pair tcgemm ships machine code for.
pub fn all_images() -> Vec<(Target, Sm)> {
    Target::ALL
        .into_iter()
        .flat_map(|t| machine_code(t).iter().map(move |&sm| (t, sm)))
        .collect()
}

/// 64-bit FNV-1a: a fingerprint of a PTX module (staleness check, not security).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Deflate at the highest level (deterministic for a given input).
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(bytes, 10)
}

/// Inverse of [`compress`].
pub fn decompress(bytes: &[u8]) -> Result<Vec<u8>, String> {
    miniz_oxide::inflate::decompress_to_vec(bytes).map_err(|e| format!("corrupt image: {e:?}"))
}

/// The release of a `ptxas` (`12.9.86` from its `--version` line `... V12.9.86`).
pub fn ptxas_release(ptxas: &Path) -> Result<String, PtxasError> {
    let out = Command::new(ptxas)
        .arg("--version")
        .output()
        .map_err(|error| PtxasError::Spawn {
            ptxas: ptxas.to_path_buf(),
            error,
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('V'))
        .find(|v| v.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or("unknown")
        .to_string())
}

/// Assembles `ptx` for `sm` with `ptxas -O3` and returns the cubin.
pub fn assemble(ptxas: &Path, ptx: &Path, sm: Sm) -> Result<Vec<u8>, PtxasError> {
    let out_file = std::env::temp_dir().join(format!("tcgemm-{}-{sm}.cubin", std::process::id()));
    let out = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .arg("-O3")
        .arg(ptx)
        .arg("-o")
        .arg(&out_file)
        .output()
        .map_err(|error| PtxasError::Spawn {
            ptxas: ptxas.to_path_buf(),
            error,
        })?;
    let failed = |output: String| PtxasError::Failed {
        ptx: ptx.to_path_buf(),
        output,
    };
    if !out.status.success() {
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        return Err(failed(text));
    }
    let cubin = std::fs::read(&out_file).map_err(|e| failed(format!("reading the cubin: {e}")));
    let _ = std::fs::remove_file(&out_file);
    cubin
}

/// `images/MANIFEST`: the `ptxas` release, then one line per image: its file, the PTX file it was
/// assembled from and that PTX's [`fnv1a64`] in hex.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// `ptxas` release that assembled the images.
    pub ptxas: String,
    /// `(image file, PTX file, PTX fingerprint)`.
    pub images: Vec<(String, String, u64)>,
}

impl Manifest {
    /// Reads the text form (see the type's docs).
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let mut m = Manifest::default();
        for (i, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["ptxas", v] => m.ptxas = (*v).to_string(),
                [image, ptx, hash] => {
                    let h = u64::from_str_radix(hash, 16)
                        .map_err(|e| format!("{MANIFEST} line {}: {e}", i + 1))?;
                    m.images.push(((*image).to_string(), (*ptx).to_string(), h));
                }
                _ => return Err(format!("{MANIFEST} line {}: `{line}`", i + 1)),
            }
        }
        Ok(m)
    }

    /// The text form.
    pub fn render(&self) -> String {
        let mut s = format!("ptxas {}\n", self.ptxas);
        for (image, ptx, hash) in &self.images {
            let _ = writeln!(s, "{image} {ptx} {hash:016x}");
        }
        s
    }

    /// The fingerprint of the PTX `image` was assembled from.
    pub fn ptx_hash(&self, image: &str) -> Option<u64> {
        self.images
            .iter()
            .find(|(i, _, _)| i == image)
            .map(|&(_, _, h)| h)
    }
}

/// What [`embed`] put into a build.
#[derive(Clone, Debug, Default)]
pub struct Embedded {
    /// The generated Rust source (`images.rs` in `OUT_DIR`): one `Image` per embedded image.
    pub source: String,
    /// Why machine code was left out (stale or missing images), for the build's warnings.
    pub notes: Vec<String>,
}

/// For a library build script: compresses each module's PTX in `out_dir` (as [`ptx_image_file`])
/// and lists, as Rust source, that PTX plus every kept image in `images_dir` assembled from exactly
/// this PTX (an image whose PTX fingerprint differs is left out with a note: the driver then
/// compiles the PTX). The source is a slice expression of `Image { target, code, deflated }` values
/// (`code: None` for PTX, `Some(Sm)` for machine code).
pub fn embed(out_dir: &Path, images_dir: &Path) -> Result<Embedded, String> {
    let manifest = match std::fs::read_to_string(images_dir.join(MANIFEST)) {
        Ok(text) => Some(Manifest::parse(&text)?),
        Err(_) => None,
    };
    let mut e = Embedded::default();
    let mut items = Vec::new();
    let item = |t: Target, code: String, path: &Path| {
        format!(
            "    Image {{ target: Target::{t:?}, code: {code}, deflated: include_bytes!({:?}) }},\n",
            path.display().to_string()
        )
    };
    for t in Target::ALL {
        let ptx = std::fs::read(out_dir.join(t.ptx_file()))
            .map_err(|err| format!("{}: {err}", out_dir.join(t.ptx_file()).display()))?;
        let packed = out_dir.join(ptx_image_file(t));
        crate::write_if_changed(&packed, &compress(&ptx)).map_err(|err| err.to_string())?;
        items.push(item(t, "None".into(), &packed));
        let hash = fnv1a64(&ptx);
        for &sm in machine_code(t) {
            let file = image_file(t, sm);
            let path = images_dir.join(&file);
            let kept = manifest.as_ref().and_then(|m| m.ptx_hash(&file));
            if kept == Some(hash) && path.is_file() {
                let code = format!(
                    "Some(Sm {{ major: {}, minor: {}, arch_specific: {} }})",
                    sm.major, sm.minor, sm.arch_specific
                );
                items.push(item(t, code, &path));
            } else if kept.is_some() {
                e.notes.push(format!(
                    "images/{file} was assembled from other PTX than this build's {}: left out \
                     (the driver compiles the PTX instead); run `cargo xtask images`",
                    t.ptx_file()
                ));
            } else {
                e.notes.push(format!("images/{file} is missing: left out"));
            }
        }
    }
    e.source = format!("&[\n{}]\n", items.concat());
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_round_trip() {
        let m = Manifest {
            ptxas: PINNED_PTXAS.to_string(),
            images: all_images()
                .into_iter()
                .map(|(t, sm)| (image_file(t, sm), t.ptx_file().to_string(), 42))
                .collect(),
        };
        assert_eq!(Manifest::parse(&m.render()).unwrap(), m);
        assert!(Manifest::parse("ptxas 1 2 3 4").is_err());
    }

    #[test]
    fn compression_round_trip() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(decompress(&compress(&data)).unwrap(), data);
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    }
}
