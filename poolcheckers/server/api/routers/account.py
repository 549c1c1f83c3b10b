"""Accounts: sign up, sign in, sign out (here or everywhere), who is signed in,
password change (docs/CONTRACTS.md §3.2; the rules are in
:mod:`poolcheckers.server.accounts.model`).

The session travels only in the ``pc_session`` cookie (HttpOnly, SameSite=Lax,
Secure behind HTTPS); answers carry the username and the session's CSRF token,
never the session token or the password hash.
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from poolcheckers.server.accounts.cookies import (
    clear_session_cookie,
    set_language_cookie,
    set_session_cookie,
)
from poolcheckers.server.accounts.model import User
from poolcheckers.server.accounts.sessions import COOKIE_NAME
from poolcheckers.server.api.deps import Ctx, json_response
from poolcheckers.server.api.http import ERROR_RESPONSES, ApiRoute
from poolcheckers.server.api.schemas import (
    AccountInfo,
    Credentials,
    PasswordChange,
    PasswordReset,
    SessionInfo,
)
from poolcheckers.server.throttle import client_address

router = APIRouter(
    prefix="/api/account",
    tags=["account"],
    route_class=ApiRoute,
    responses={
        **ERROR_RESPONSES,
        401: {"model": ERROR_RESPONSES[400]["model"], "description": "not signed in"},
    },
)


def _signed_in(user: User, csrf: str, token: str, request: Request) -> Response:
    response = json_response(AccountInfo(username=user.username, csrf_token=csrf).model_dump_json())
    set_session_cookie(response, token, request)
    if user.locale:  # the account's language follows it to this browser
        set_language_cookie(response, user.locale, request)
    return response


@router.post("/signup", response_model=AccountInfo, summary="Create an account and sign in")
async def signup(body: Credentials, request: Request, ctx: Ctx) -> Response:
    c = ctx.accounts
    done = await c.hashing(
        c.accounts.signup, body.username, body.password, address=client_address(request)
    )
    info = done.user.private(done.token)
    return _signed_in(done.user, str(info["csrf_token"]), done.token, request)


@router.post("/login", response_model=AccountInfo, summary="Sign in (a new session)")
async def login(body: Credentials, request: Request, ctx: Ctx) -> Response:
    c = ctx.accounts
    address = client_address(request)
    await c.sign_in_burst(address)
    done = await c.hashing(c.accounts.login, body.username, body.password, address=address)
    info = done.user.private(done.token)
    return _signed_in(done.user, str(info["csrf_token"]), done.token, request)


@router.post("/logout", status_code=204, summary="Sign out (ends this session)")
async def logout(request: Request, ctx: Ctx) -> Response:
    c = ctx.accounts
    user, token = await c.require_user(request)
    await ctx.run(c.accounts.logout, token)
    await c.ended(user.id, token)
    response = Response(status_code=204)
    clear_session_cookie(response, request)
    return response


@router.get("", response_model=AccountInfo, summary="Who is signed in (401 if nobody)")
async def account(request: Request, ctx: Ctx) -> Response:
    user, token = await ctx.accounts.require_user(request)
    info = user.private(token)
    return json_response(
        AccountInfo(username=user.username, csrf_token=str(info["csrf_token"])).model_dump_json(),
        headers={"Cache-Control": "no-store"},
    )


@router.post(
    "/reset",
    response_model=AccountInfo,
    summary="Set a new password with a one-time reset code (every session ends, every API token is revoked)",  # noqa: E501
)
async def reset_password(body: PasswordReset, request: Request, ctx: Ctx) -> Response:
    c = ctx.accounts
    address = client_address(request)
    await c.sign_in_burst(address)
    done = await c.hashing(
        c.accounts.reset_password, body.username, body.code, body.password, address=address
    )
    await c.ended_everywhere(done.user.id)
    info = done.user.private(done.token)
    return _signed_in(done.user, str(info["csrf_token"]), done.token, request)


@router.post(
    "/password",
    response_model=AccountInfo,
    summary="Change the password (every session ends, every API token is revoked; this one is renewed)",  # noqa: E501
)
async def change_password(body: PasswordChange, request: Request, ctx: Ctx) -> Response:
    c = ctx.accounts
    _user, token = await c.require_user(request)
    done = await c.hashing(
        c.accounts.change_password, token, body.old, body.new, address=client_address(request)
    )
    # every other session and every API token ended with the old password
    await c.ended_everywhere(done.user.id)
    info = done.user.private(done.token)
    return _signed_in(done.user, str(info["csrf_token"]), done.token, request)


@router.post(
    "/logout-everywhere",
    response_model=AccountInfo,
    summary="Sign out everywhere: every session ends, every API token is revoked; this one is renewed",  # noqa: E501
)
async def logout_everywhere(request: Request, ctx: Ctx) -> Response:
    c = ctx.accounts
    _user, token = await c.require_user(request)
    done = await ctx.run(c.accounts.sign_out_everywhere, token)
    await c.ended_everywhere(done.user.id)
    info = done.user.private(done.token)
    return _signed_in(done.user, str(info["csrf_token"]), done.token, request)


#: ``GET /api/session`` lives beside the account routes, outside their prefix
session_router = APIRouter(tags=["account"], route_class=ApiRoute, responses=ERROR_RESPONSES)


@session_router.get(
    "/api/session", response_model=SessionInfo, summary="The signed-in account, or null"
)
async def session(request: Request, ctx: Ctx) -> Response:
    """What every page asks first: a signed-out visitor is an answer (null), not an
    error, so that the browser logs nothing on every page."""
    user = await ctx.accounts.user_of(request)
    account = None
    if user is not None:
        token = request.cookies.get(COOKIE_NAME, "")
        info = user.private(token)
        account = AccountInfo(username=user.username, csrf_token=str(info["csrf_token"]))
    return json_response(
        SessionInfo(account=account).model_dump_json(), headers={"Cache-Control": "no-store"}
    )
