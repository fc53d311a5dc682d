import { navigate } from "../router";

/** Settings' way to Models. */
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
    </section>
  );
}
