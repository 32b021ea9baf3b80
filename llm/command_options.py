"""The endpoint options every LLM command takes, declared once (docs/llm.md): --base-url, --model, --api-key-env,
each defaulting to the campaign's LLM endpoint."""
from llm import services as llm_services
from llm.client import EndpointSettings
from pooling.models import Campaign


def add_endpoint_arguments(parser) -> None:
    parser.add_argument("--base-url", help="the OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 "
                                           "(default: the campaign's)")
    parser.add_argument("--model", help="the model name the endpoint knows (default: the campaign's)")
    parser.add_argument("--api-key-env", metavar="VAR",
                        help="the NAME of the environment variable holding the key, never the key")


def endpoint_from_options(*, campaign: Campaign, options: dict) -> EndpointSettings:
    """The campaign's endpoint settings with the command's options over them."""
    return llm_services.endpoint_settings(campaign=campaign, overrides={
        "base_url": options["base_url"], "model": options["model"], "api_key_env": options["api_key_env"]})
