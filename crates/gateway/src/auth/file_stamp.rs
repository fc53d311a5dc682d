//! One file's version, shared with the conversations crate.
pub use conversations::file_stamp::{stamp, FileStamp};
