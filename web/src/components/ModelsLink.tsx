import { navigate } from "../router";

/** Settings' way to Models and Apps. */
export function ModelsLink() {
  return (
    <section>
      <h2>Models</h2>
      <p>
        <a
          href="/settings/models"
          onClick={(e) => {
            e.preventDefault();
            navigate("/settings/models");
          }}
        >
          Add, test and remove model providers
        </a>
      </p>
      <h2>Apps</h2>
      <p>
        <a
          href="/settings/apps"
          onClick={(e) => {
            e.preventDefault();
            navigate("/settings/apps");
          }}
        >
          Your apps (MCP servers) and each tool's choice
        </a>
      </p>
    </section>
  );
}
