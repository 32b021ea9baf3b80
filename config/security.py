"""Content-Security-Policy for every response: scripts, styles, fonts and images only from this service.

Collection HTML is sanitized (assessor/rendering.py) and MathJax runs with its safe extension; this is the second
line: even markup that slipped through could not load or run a script from anywhere else, or inline.
"""
from django.conf import settings

# MathJax's CHTML output writes its own <style> element and inline styles, hence 'unsafe-inline' for styles only.
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
          "frame-ancestors 'none'")


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.policy = getattr(settings, "CONTENT_SECURITY_POLICY", POLICY)

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.policy)
        return response
