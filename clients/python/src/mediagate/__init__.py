"""mediagate: a client for a mediagate gateway, standard library only (Python 3.9+).

    from mediagate import Mediagate
    client = Mediagate("https://gateway.example.com", api_key="mg_live_…")
    prediction = client.run("canvas-v1-fast-text-to-image", {"prompt": "a lighthouse at dusk"})
    print(prediction["outputs"])
"""
from .client import Mediagate
from .errors import (AuthenticationError, ConflictError, ForbiddenError, GatewayConnectionError, GatewayError,
                     InsufficientCreditError, MediagateError, NotFoundError, PredictionFailedError, RateLimitError,
                     ServerError, ValidationError, WaitTimeoutError, WebhookVerificationError)
from .types import TERMINAL_STATUSES
from .webhooks import verify_webhook

__version__ = "0.1.0"

__all__ = [
    "Mediagate", "verify_webhook", "TERMINAL_STATUSES",
    "MediagateError", "GatewayError", "AuthenticationError", "ForbiddenError", "InsufficientCreditError",
    "NotFoundError", "ConflictError", "ValidationError", "RateLimitError", "ServerError",
    "GatewayConnectionError", "WaitTimeoutError", "PredictionFailedError", "WebhookVerificationError",
]
