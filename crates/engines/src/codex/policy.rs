//! Which approval policy and sandbox a Codex turn runs under. Pure: the
//! chat's state and an optional configured policy in; what goes on
//! `thread/start` and `turn/start` out.
//!
//! Conch's PreToolUse hook asks before every step in every mode, so
//! Codex's own questions are only needed for one thing: a command that
//! wants to leave Codex's sandbox (`require_escalated`). `on-request` asks
//! exactly then, so it is the default; Conch answers through the approval
//! path as leaving the box.
//!
//! Measured with Codex 0.171.0 (docs/providers.md has the commands): an
//! approval Codex asks for under `untrusted` or `on-request` may be for a
//! command that asked to leave the sandbox, and the request looks the same
//! either way. Accepting it runs the command outside the sandbox. So a
//! tight turn runs under a policy that can't lift the sandbox at all:
//! `never`, or `granular` with sandbox and permission approvals off.

use std::path::PathBuf;

use serde_json::{json, Value};

/// `granular`'s switches, as Codex names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Granular {
    pub sandbox_approval: bool,
    pub rules: bool,
    pub skill_approval: bool,
    pub request_permissions: bool,
    pub mcp_elicitations: bool,
}

/// An approval policy Codex's app-server accepts (it rejects `on-failure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Untrusted,
    OnRequest,
    Never,
    Granular(Granular),
}

impl Policy {
    /// Every policy the app-server takes, for tests and `--approval-policy`.
    pub const ALL: [Policy; 4] = [
        Policy::Untrusted,
        Policy::OnRequest,
        Policy::Never,
        Policy::Granular(Granular {
            sandbox_approval: true,
            rules: true,
            skill_approval: true,
            request_permissions: true,
            mcp_elicitations: true,
        }),
    ];

    /// `untrusted`, `on-request`, `never` or `granular` (everything on).
    pub fn parse(text: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == text)
    }

    pub fn name(&self) -> &'static str {
        match self {
            Policy::Untrusted => "untrusted",
            Policy::OnRequest => "on-request",
            Policy::Never => "never",
            Policy::Granular(_) => "granular",
        }
    }

    /// The value of `approvalPolicy`.
    pub fn to_json(&self) -> Value {
        match self {
            Policy::Granular(g) => json!({ "granular": {
                "sandbox_approval": g.sandbox_approval,
                "rules": g.rules,
                "skill_approval": g.skill_approval,
                "request_permissions": g.request_permissions,
                "mcp_elicitations": g.mcp_elicitations,
            }}),
            other => json!(other.name()),
        }
    }

    /// Whether accepting one of Codex's questions under this policy can
    /// run something outside the sandbox (an escalated command, or more
    /// permissions for the session).
    pub fn can_lift_sandbox(&self) -> bool {
        match self {
            Policy::Untrusted | Policy::OnRequest => true,
            Policy::Never => false,
            Policy::Granular(g) => g.sandbox_approval || g.request_permissions,
        }
    }

    /// The nearest policy whose approvals keep the sandbox.
    pub fn keeping_sandbox(self) -> Policy {
        match self {
            Policy::Granular(g) => Policy::Granular(Granular {
                sandbox_approval: false,
                request_permissions: false,
                ..g
            }),
            p if p.can_lift_sandbox() => Policy::Never,
            p => p,
        }
    }
}

/// Where a turn's commands run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sandbox {
    /// With the person's own access (`danger-full-access`).
    FullAccess,
    /// Writes only in the work folder (and temp); the network as given.
    WorkspaceWrite { network: bool },
}

impl Sandbox {
    /// `thread/start`'s `sandbox`.
    pub fn mode(&self) -> &'static str {
        match self {
            Sandbox::FullAccess => "danger-full-access",
            Sandbox::WorkspaceWrite { .. } => "workspace-write",
        }
    }

    /// `turn/start`'s `sandboxPolicy`.
    pub fn to_json(&self, writable: &[PathBuf]) -> Value {
        match self {
            Sandbox::FullAccess => json!({ "type": "dangerFullAccess" }),
            Sandbox::WorkspaceWrite { network } => json!({
                "type": "workspaceWrite",
                "writableRoots": writable,
                "networkAccess": network,
                "excludeTmpdirEnvVar": false,
                "excludeSlashTmp": false,
            }),
        }
    }

    pub fn is_sandboxed(&self) -> bool {
        matches!(self, Sandbox::WorkspaceWrite { .. })
    }
}

/// What one turn runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub policy: Policy,
    pub sandbox: Sandbox,
}

/// The plan for a turn: `tight` when the chat read something from outside
/// or is held to a skill that runs no command; `sealing` when commands may
/// run sealed here (Safety's "Seal commands", and a sandbox this computer
/// can make); `configured` when the provider names a policy.
pub fn plan(tight: bool, sealing: bool, configured: Option<Policy>) -> Plan {
    let policy = configured.unwrap_or(Policy::OnRequest);
    if tight {
        return Plan {
            policy: policy.keeping_sandbox(),
            sandbox: Sandbox::WorkspaceWrite { network: false },
        };
    }
    Plan {
        policy,
        // Like Conch's own sealed commands: writes in the work folder and
        // temp, the network open.
        sandbox: if sealing {
            Sandbox::WorkspaceWrite { network: true }
        } else {
            Sandbox::FullAccess
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tight_turn_never_runs_under_a_policy_that_can_lift_the_sandbox() {
        for sealing in [true, false] {
            for configured in Policy::ALL.into_iter().map(Some).chain([None]) {
                let p = plan(true, sealing, configured);
                assert!(!p.policy.can_lift_sandbox(), "{configured:?}");
                assert_eq!(p.sandbox, Sandbox::WorkspaceWrite { network: false });
            }
        }
    }

    #[test]
    fn every_granular_switch_combination_is_kept_or_closed() {
        for bits in 0u8..32 {
            let g = Granular {
                sandbox_approval: bits & 1 != 0,
                rules: bits & 2 != 0,
                skill_approval: bits & 4 != 0,
                request_permissions: bits & 8 != 0,
                mcp_elicitations: bits & 16 != 0,
            };
            let kept = Policy::Granular(g).keeping_sandbox();
            assert!(!kept.can_lift_sandbox(), "{g:?}");
            // The switches that don't touch the sandbox stay as they were.
            let Policy::Granular(k) = kept else {
                panic!("granular stays granular")
            };
            assert_eq!(
                (k.rules, k.skill_approval, k.mcp_elicitations),
                (g.rules, g.skill_approval, g.mcp_elicitations)
            );
        }
    }

    #[test]
    fn a_loose_turn_is_sealed_as_conch_seals_commands() {
        let p = plan(false, true, None);
        assert_eq!(p.policy, Policy::OnRequest);
        assert_eq!(p.sandbox, Sandbox::WorkspaceWrite { network: true });
        assert_eq!(plan(false, false, None).sandbox, Sandbox::FullAccess);
        assert_eq!(
            plan(false, true, Some(Policy::Untrusted)).policy,
            Policy::Untrusted
        );
    }

    #[test]
    fn on_failure_is_not_a_policy() {
        assert_eq!(Policy::parse("on-failure"), None);
        for p in Policy::ALL {
            assert_eq!(Policy::parse(p.name()), Some(p));
        }
        assert_eq!(Policy::Never.to_json(), json!("never"));
        assert_eq!(
            Policy::ALL[3].to_json()["granular"]["sandbox_approval"],
            json!(true)
        );
    }

    #[test]
    fn the_sandbox_policy_has_no_network_when_tight() {
        let v = Sandbox::WorkspaceWrite { network: false }.to_json(&[]);
        assert_eq!(v["type"], "workspaceWrite");
        assert_eq!(v["networkAccess"], false);
        assert_eq!(
            Sandbox::FullAccess.to_json(&[]),
            json!({"type": "dangerFullAccess"})
        );
    }
}
