//! Windows DPAPI: the key kept in `keystore/device.key.dpapi`, protected
//! for this Windows user (CryptProtectData), so a copy of the file opens
//! nowhere else.

use std::path::Path;

use zeroize::Zeroizing;

use super::{DeviceKey, Keystore, KeystoreKind};
use crate::error::KeystoreError;

#[repr(C)]
struct Blob {
    len: u32,
    data: *mut u8,
}

#[link(name = "crypt32")]
extern "system" {
    fn CryptProtectData(
        input: *const Blob,
        description: *const u16,
        entropy: *const Blob,
        reserved: *mut core::ffi::c_void,
        prompt: *mut core::ffi::c_void,
        flags: u32,
        output: *mut Blob,
    ) -> i32;
    fn CryptUnprotectData(
        input: *const Blob,
        description: *mut *mut u16,
        entropy: *const Blob,
        reserved: *mut core::ffi::c_void,
        prompt: *mut core::ffi::c_void,
        flags: u32,
        output: *mut Blob,
    ) -> i32;
}

#[link(name = "kernel32")]
extern "system" {
    fn LocalFree(memory: *mut core::ffi::c_void) -> *mut core::ffi::c_void;
}

/// CRYPTPROTECT_UI_FORBIDDEN: never show a prompt.
const UI_FORBIDDEN: u32 = 0x1;

fn call(protect: bool, bytes: &[u8]) -> Result<Zeroizing<Vec<u8>>, KeystoreError> {
    let input = Blob {
        len: bytes.len() as u32,
        data: bytes.as_ptr() as *mut u8,
    };
    let mut output = Blob {
        len: 0,
        data: std::ptr::null_mut(),
    };
    // SAFETY: input points at `bytes` for the call; output is filled by
    // DPAPI with memory we copy and then free with LocalFree, as documented.
    let ok = unsafe {
        if protect {
            CryptProtectData(
                &input,
                std::ptr::null(),
                std::ptr::null(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                UI_FORBIDDEN,
                &mut output,
            )
        } else {
            CryptUnprotectData(
                &input,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                UI_FORBIDDEN,
                &mut output,
            )
        }
    };
    if ok == 0 || output.data.is_null() {
        return Err(KeystoreError::Refused(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    // SAFETY: DPAPI returned `len` bytes at `data`.
    let copy = unsafe { std::slice::from_raw_parts(output.data, output.len as usize) }.to_vec();
    // SAFETY: `data` was allocated by DPAPI with LocalAlloc.
    unsafe { LocalFree(output.data.cast()) };
    Ok(Zeroizing::new(copy))
}

pub struct Dpapi {
    path: std::path::PathBuf,
}

impl Dpapi {
    pub fn new(home: &Path) -> Dpapi {
        Dpapi {
            path: home.join("keystore").join("device.key.dpapi"),
        }
    }
}

impl Keystore for Dpapi {
    fn kind(&self) -> KeystoreKind {
        KeystoreKind::WindowsDpapi
    }

    fn read(&self) -> Result<Option<DeviceKey>, KeystoreError> {
        let sealed = match std::fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(KeystoreError::Io(e)),
        };
        let plain = call(false, &sealed)?;
        let key: [u8; 32] = plain
            .as_slice()
            .try_into()
            .map_err(|_| KeystoreError::Damaged("the DPAPI file isn't a 32-byte key".to_owned()))?;
        Ok(Some(Zeroizing::new(key)))
    }

    fn store(&self, key: &DeviceKey) -> Result<(), KeystoreError> {
        let sealed = call(true, key.as_ref())?;
        if self.path.exists() {
            return Ok(());
        }
        crate::atomic::write_atomic(&self.path, &sealed).map_err(KeystoreError::Io)
    }
}
