//! Device scratch memory a [`Context`] owns: the split-K and stream-K workspace, and the staging
//! buffer of operands that are not 16-byte aligned ([`crate::staging`]). Each is grown on demand,
//! never shrunk, and used only by work enqueued on the context's stream while its lock is held.

use crate::context::Context;
use crate::error::{invalid, Error, Result};
use cudarc::driver::{CudaSlice, DevicePtrMut};
use std::sync::{Mutex, MutexGuard};

/// One allocation and its address, taken once. Only the context's stream uses it, so launches use
/// the address without cudarc's per-buffer events (whose waits on work recorded before a stream
/// capture would break the capture).
pub(crate) struct Workspace {
    /// Device address of `buf`.
    pub addr: u64,
    /// The allocation (kept alive and freed on drop).
    buf: CudaSlice<f32>,
}

/// A grow-only device buffer behind a lock.
pub(crate) struct Scratch {
    /// What it holds, for error messages ("split-K workspace").
    what: &'static str,
    slot: Mutex<Option<Workspace>>,
}

impl Scratch {
    /// An empty scratch buffer (nothing allocated).
    pub(crate) fn new(what: &'static str) -> Scratch {
        Scratch {
            what,
            slot: Mutex::new(None),
        }
    }

    /// Bytes allocated now.
    pub(crate) fn bytes(&self) -> u64 {
        self.lock().as_ref().map_or(0, |w| 4 * w.buf.len() as u64)
    }

    fn lock(&self) -> MutexGuard<'_, Option<Workspace>> {
        // a panic while holding the lock leaves nothing half-done: the buffer is still valid
        self.slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The buffer, locked and holding at least `bytes` (grown when smaller: allocated zeroed on
    /// the context's stream; the old buffer is freed in stream order, after the work already
    /// enqueued on it), and its address. The caller enqueues the work that uses it while it holds
    /// the guard, so two threads sharing the context never interleave on it (the stream orders one
    /// call's use before the next call's).
    pub(crate) fn at_least(
        &self,
        ctx: &Context,
        bytes: u64,
    ) -> Result<(MutexGuard<'_, Option<Workspace>>, u64)> {
        let mut ws = self.lock();
        let len = usize::try_from(bytes.div_ceil(4))
            .map_err(|_| invalid("m, n", format!("a {} of {bytes} bytes", self.what)))?;
        if ws.as_ref().is_none_or(|w| w.buf.len() < len) {
            *ws = None; // freed (in stream order) before the larger one is allocated
            let mut buf = ctx.alloc_zeros::<f32>(len)?;
            // the guard records cudarc's write event now, before any capture could begin
            let addr = buf.device_ptr_mut(ctx.stream()).0;
            *ws = Some(Workspace { addr, buf });
        }
        let addr = ws
            .as_ref()
            .ok_or_else(|| Error::Unsupported(format!("the {} is missing", self.what)))?
            .addr;
        Ok((ws, addr))
    }
}
