//! What a sealed command's environment loses: the addresses of the owner's
//! agents and buses, and anything that looks like a credential.

/// Variables removed by name.
const NAMES: &[&str] = &[
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DOCKER_HOST",
    "KRB5CCNAME",
    "XAUTHORITY",
    "CONCH_KEY",
    "CONCH_HOME",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AZURE_CLIENT_SECRET",
    "KUBECONFIG",
    "NETRC",
    "PGPASSWORD",
    "MYSQL_PWD",
];

/// Parts of a name that mark it as a credential.
const PARTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "AUTH",
];

/// Whether a variable is kept out of the box.
pub fn scrubbed(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    NAMES.contains(&upper.as_str())
        || PARTS.iter().any(|p| upper.contains(p))
        || upper.ends_with("_KEY")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_go_and_the_rest_stays() {
        for gone in [
            "SSH_AUTH_SOCK",
            "DBUS_SESSION_BUS_ADDRESS",
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "AWS_SECRET_ACCESS_KEY",
            "MY_SERVICE_PASSWORD",
            "NPM_TOKEN",
            "STRIPE_KEY",
            "CONCH_KEY",
            "GH_AUTH",
        ] {
            assert!(scrubbed(gone), "{gone}");
        }
        for kept in [
            "PATH",
            "HOME",
            "LANG",
            "TERM",
            "USER",
            "CARGO_HOME",
            "TMPDIR",
            "EDITOR",
            "KEYMAP",
        ] {
            assert!(!scrubbed(kept), "{kept}");
        }
    }
}
