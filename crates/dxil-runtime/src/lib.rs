//! placeholder
pub mod case;
pub mod expect;
pub mod format;
pub mod init;
pub mod reflect;
pub mod report;
pub mod vulkan;

pub use case::Case;
pub use report::{RunError, RunOptions, RunReport, ShaderModule};
pub use vulkan::{DeviceInfo, Runtime};
