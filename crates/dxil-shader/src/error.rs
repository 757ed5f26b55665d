//! The error of the typed metadata view.

use std::borrow::Cow;
use std::fmt;

use dxil_module::MdId;

/// What kind of problem the metadata has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A required item (named metadata, operand) is absent.
    Missing,
    /// An item has the wrong shape: not a node, too few operands, not a constant of the
    /// expected type.
    Malformed,
    /// An item is well-formed but its value breaks a DXIL rule (unknown shader stage, a tag
    /// without a value, an entry count that the shader model does not allow).
    Invalid,
    /// Decoding would cost far more than the metadata's size (a node shared by very many
    /// references); refused rather than amplified.
    Limit,
}

/// A problem in the DXIL metadata of a module, with the metadata node and field it was found in.
///
/// Nodes are named `!N`, where `N` is the node's index in the module's metadata table (file
/// order), which is how this workspace's printer numbers them.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    inner: Box<Inner>,
}

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    /// What the node is (`dx.resources SRV record`, `signature element`).
    context: &'static str,
    node: Option<MdId>,
    field: Option<Cow<'static, str>>,
    message: Cow<'static, str>,
}

impl Error {
    #[cold]
    pub(crate) fn new(
        kind: ErrorKind,
        context: &'static str,
        node: Option<MdId>,
        field: Option<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Error {
        Error {
            inner: Box::new(Inner {
                kind,
                context,
                node,
                field,
                message: message.into(),
            }),
        }
    }

    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The metadata node the problem is in, if it is in one.
    pub fn node(&self) -> Option<MdId> {
        self.inner.node
    }

    /// The field (operand name or tag) of the node, if the problem is in one.
    pub fn field(&self) -> Option<&str> {
        self.inner.field.as_deref()
    }

    /// What the node is, e.g. `dx.resources SRV record`.
    pub fn context(&self) -> &'static str {
        self.inner.context
    }

    pub fn message(&self) -> &str {
        &self.inner.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.inner;
        f.write_str(i.context)?;
        if let Some(node) = i.node {
            write!(f, " !{}", node.0)?;
        }
        if let Some(field) = &i.field {
            write!(f, ", field `{field}`")?;
        }
        write!(f, ": {}", i.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Error({:?}: {self})", self.inner.kind)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_node_and_field() {
        let e = Error::new(
            ErrorKind::Malformed,
            "dx.resources SRV record",
            Some(MdId(12)),
            Some("space".into()),
            "expected an i32 constant",
        );
        assert_eq!(
            e.to_string(),
            "dx.resources SRV record !12, field `space`: expected an i32 constant"
        );
        assert_eq!(e.node(), Some(MdId(12)));
        assert_eq!(e.field(), Some("space"));
        assert_eq!(e.kind(), ErrorKind::Malformed);
        let e = Error::new(
            ErrorKind::Missing,
            "module",
            None,
            None,
            "no !dx.shaderModel",
        );
        assert_eq!(e.to_string(), "module: no !dx.shaderModel");
    }
}
