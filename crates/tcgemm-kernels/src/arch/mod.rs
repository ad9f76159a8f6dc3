//! The device layer: one `#[inline(always)]` wrapper per PTX instruction (or special register).
//!
//! Naming follows the data movement (source → destination) and the full instruction signature, so a
//! reader can map every call to the PTX it emits. Components above this layer never write `asm!`.
//! Shared-memory addresses are 32-bit offsets in the `.shared` window ([`smem::base`] + byte offset);
//! global addresses are 64-bit addresses in the `.global` window ([`global::to_global`]).

#[cfg(target_feature = "sm_90a")]
pub mod cluster;
pub mod convert;
pub mod cp_async;
pub mod global;
#[cfg(target_feature = "sm_90")]
pub mod grid_dependency;
pub mod index;
pub mod ldmatrix;
#[cfg(target_feature = "sm_90a")]
pub mod mbarrier;
pub mod mma;
pub mod movmatrix;
pub mod opaque;
pub mod smem;
#[cfg(target_feature = "sm_90a")]
pub mod stmatrix;
pub mod sync;
#[cfg(target_feature = "sm_90a")]
pub mod tma;
#[cfg(target_feature = "sm_90a")]
pub mod wgmma;
