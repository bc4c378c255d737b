"""The shapes of the gateway's answers the client returns (as plain dicts), for type checkers."""
from typing import Any, Dict, List, Optional, TypedDict

__all__ = [
    "Prediction", "Submitted", "Balance", "Quote", "Uploaded", "ModelEntry", "ApiKey", "CreatedApiKey",
    "UserDetails", "Page", "WebhookSecret", "WebhookTestResult", "WebhookPayload", "TERMINAL_STATUSES",
]

TERMINAL_STATUSES = frozenset(["completed", "failed", "cancelled"])


class _Urls(TypedDict):
    get: str


class _SubmittedUrls(TypedDict):
    get: str
    cancel: str


class _Timings(TypedDict):
    inference: Optional[int]


class _PredictionRequired(TypedDict):
    id: str
    model: str
    status: str
    outputs: List[str]
    outputs_expired: bool
    urls: _Urls
    has_nsfw_contents: List[bool]
    created_at: str
    started_at: Optional[str]
    completed_at: Optional[str]
    error: Optional[str]
    executionTime: Optional[str]
    timings: _Timings


class Prediction(_PredictionRequired, total=False):
    """A prediction as the result route (and each stream event) shows it."""
    error_code: Optional[str]
    #: the provider's queue position while processing (stream events only)
    queue_position: Optional[int]
    #: 0..1 while processing at a provider that reports it (stream events only)
    progress: Optional[float]
    #: the credits held for it (``run`` adds it from the submit answer)
    price: int


class Submitted(TypedDict):
    """The answer to a submit: the id, the state it was accepted in, its URLs and the credits held."""
    request_id: str
    status: str
    urls: _SubmittedUrls
    price: int


class Balance(TypedDict):
    balance: int
    held: int
    unit: str


class Quote(TypedDict):
    model: str
    cost: int
    list_price: int
    unit: str
    breakdown: Dict[str, Any]
    discount: Optional[Dict[str, Any]]
    balance: int
    affordable: bool


class Uploaded(TypedDict):
    #: the stored file's URL: pass it as a model input (``image_url``, ``audio_url``, ...)
    url: str
    content_type: str
    media_type: str
    bytes: int


class ModelEntry(TypedDict):
    slug: str
    path: str
    title: str
    category: str
    tier: str
    family: str
    output: str
    price: Dict[str, Any]
    input_schema: Dict[str, Any]
    available: bool


class ApiKey(TypedDict, total=False):
    id: int
    name: str
    prefix: str
    is_test: bool
    ip_whitelist: List[str]
    created_at: str
    last_used_at: Optional[str]


class CreatedApiKey(ApiKey, total=False):
    #: the secret, shown in this answer only
    key: str


class UserDetails(TypedDict, total=False):
    id: int
    email: str
    role: str
    balance: int
    email_verified: bool


class Page(TypedDict):
    items: List[Dict[str, Any]]
    page: int
    page_size: int
    total: Optional[int]
    has_more: bool


class _Previous(TypedDict):
    created_at: str
    expires_at: Optional[str]


class WebhookSecret(TypedDict):
    secret: str
    sandbox: bool
    created_at: str
    previous: List[_Previous]


class WebhookTestResult(TypedDict):
    """What a receiver answered to a test event (``webhooks.send_test``)."""
    webhook_id: str
    delivered: bool
    status_code: Optional[int]
    error: Optional[str]
    duration_ms: int


class _WebhookPayloadRequired(TypedDict):
    id: str
    urls: _Urls
    has_nsfw_contents: List[bool]
    status: str
    created_at: str
    executionTime: str
    timings: _Timings


class WebhookPayload(_WebhookPayloadRequired, total=False):
    outputs: List[str]
    error: str
