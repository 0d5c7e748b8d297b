// Generated from the API's OpenAPI schema by `npm run gen:api-types`. Do not edit by hand.

export interface paths {
    "/api/{user_id}/agent-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Agent Keys */
        get: operations["list_agent_keys_api__user_id__agent_keys_get"];
        put?: never;
        /**
         * Create Agent Key
         * @description A key for the named agent: what it writes is `role=agent, author=<agent>`. The secret
         *     is in this response only. Needs a sign-in within PARLEY_REAUTH_MINUTES (403
         *     `reauth_required`): a key outlives the session that made it.
         */
        post: operations["create_agent_key_api__user_id__agent_keys_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/agent-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke Agent Key
         * @description Refused everywhere (REST, SSE, /mcp, stdio; every instance) within a second.
         */
        delete: operations["revoke_agent_key_api__user_id__agent_keys__key_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/approval-rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Rules
         * @description The person's rules, oldest first.
         */
        get: operations["list_rules_api__user_id__approval_rules_get"];
        put?: never;
        /**
         * Add Rule
         * @description A new rule. A pattern Claude Code would not read is 422 (`bad_pattern`, saying what is
         *     wrong); the same pattern again in the same scope is 409 (`rule_exists`); past 500 rules
         *     is 422 (`too_many_rules`). Nothing is stored then.
         */
        post: operations["add_rule_api__user_id__approval_rules_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/approval-rules/{rule_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove Rule */
        delete: operations["remove_rule_api__user_id__approval_rules__rule_id__delete"];
        options?: never;
        head?: never;
        /**
         * Change Rule
         * @description Change the fields given (`scope: "all"` alone clears `scope_value`). Another
         *     person's rule, or none, is 404.
         */
        patch: operations["change_rule_api__user_id__approval_rules__rule_id__patch"];
        trace?: never;
    };
    "/api/{user_id}/approval-rules/from-question/{question_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Always Allow
         * @description "Always allow this": answer the permission question `allow` and make the narrowest
         *     rule for its call (`Bash(<that command>)`, `Edit(//<that file>)`, the MCP tool...), so
         *     the same call is allowed without a question from now on. A question already answered
         *     or closed is 409 and no rule is made; a call no rule can name is 422. A notification's
         *     "Always allow" button posts here with its device (`X-Parley-Device`), the web UI with
         *     `X-Parley-Via: email_link` for a question an emailed link opened: the audit trail
         *     records the answer as through them, as for `.../answer`.
         */
        post: operations["always_allow_api__user_id__approval_rules_from_question__question_id__post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/attachment-limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Limits
         * @description What the composer may take before it uploads: the size cap, and whether the model
         *     that answers chats here takes images (a message with one is refused otherwise).
         */
        get: operations["limits_api__user_id__attachment_limits_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/attachments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload
         * @description Keep a text or code file, or a PNG, JPEG, GIF or WebP image, for the person's next
         *     chat message (`attachments` of `POST /chat`). What it is comes from its bytes: the
         *     `Content-Type` and the name's extension are only checked against them (an SVG or an
         *     executable calling itself `image/png` is a 422 `unsupported_attachment`). The name is
         *     kept as its last path segment, without control characters.
         */
        post: operations["upload_api__user_id__attachments_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/attachments/{attachment_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download
         * @description The file, to its owner only (404 for anyone else's). Only a PNG, JPEG, GIF or WebP
         *     image is ever shown inline; everything else (text, code) is a download, as
         *     `text/plain`, never sniffed into anything a browser would run.
         */
        get: operations["download_api__user_id__attachments__attachment_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read Trail
         * @description The person's decisions, newest first: what was asked, by which agent, who or which
         *     rule decided, through what, and how long it waited.
         */
        get: operations["read_trail_api__user_id__audit_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/audit.jsonl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export Trail
         * @description Every matching decision as JSON Lines (one event a line, newest first), streamed.
         */
        get: operations["export_trail_api__user_id__audit_jsonl_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat
         * @description Run one chat turn (or, with `retry`, re-run the failed last one; with `replaces`, edit
         *     a message or regenerate a reply on a new branch of the same conversation). With
         *     `Accept: text/event-stream` the same turn streams as SSE.
         */
        post: operations["chat_api__user_id__chat_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/connected-apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Connected Apps */
        get: operations["list_connected_apps_api__user_id__connected_apps_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/connected-apps/{app_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke Connected App
         * @description Its tokens are refused by `/mcp` on every instance within a second.
         */
        delete: operations["revoke_connected_app_api__user_id__connected_apps__app_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Conversations
         * @description Newest activity first, each with a preview of its last message.
         */
        get: operations["list_conversations_api__user_id__conversations_get"];
        put?: never;
        /** Create Conversation */
        post: operations["create_conversation_api__user_id__conversations_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Conversation */
        get: operations["get_conversation_api__user_id__conversations__conversation_id__get"];
        put?: never;
        post?: never;
        /**
         * Delete Conversation
         * @description A work conversation's session (its process tree) ends first.
         */
        delete: operations["delete_conversation_api__user_id__conversations__conversation_id__delete"];
        options?: never;
        head?: never;
        /** Rename Conversation */
        patch: operations["rename_conversation_api__user_id__conversations__conversation_id__patch"];
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/archived": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Archived
         * @description Archive (out of the conversation list, nothing deleted) or restore it.
         */
        put: operations["set_archived_api__user_id__conversations__conversation_id__archived_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/branch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Show Branch
         * @description Show the branch of `message_id` (a sibling of a shown message) from now on: in every
         *     tab, and for the next turn's history. 409 while a reply is being written; nothing moves
         *     when it is shown already.
         */
        post: operations["show_branch_api__user_id__conversations__conversation_id__branch_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/branches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Branches
         * @description Each message on the shown branch that has siblings (other edits of it, other replies to
         *     its question), with their ids, oldest first.
         */
        get: operations["list_branches_api__user_id__conversations__conversation_id__branches_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Events
         * @description Stored messages carry `id:`; reconnect with `Last-Event-ID` (or `?after=`) to get exactly
         *     the ones missed. Without either, the stream starts from now. A reply being written
         *     arrives as `delta` events; joining mid-reply starts with one delta holding the text so far;
         *     `reply_end` names the message the reply was stored as.
         */
        get: operations["events_api__user_id__conversations__conversation_id__events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export
         * @description The whole conversation as a file to download: Markdown to read, or JSON.
         */
        get: operations["export_api__user_id__conversations__conversation_id__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Messages
         * @description Ascending by id: the last `limit` without `after`, else the first `limit` after it.
         */
        get: operations["list_messages_api__user_id__conversations__conversation_id__messages_get"];
        put?: never;
        /**
         * Post To Conversation
         * @description Write into an inbox, run or delegation conversation, as the token's agent
         *     (`role=agent`) or person (`role=user`). A person's message answers the question it
         *     replies to, or else the oldest open question here (then stored as `kind=answer`); in the
         *     inbox, the oldest open question the inbox shows (`GET /questions`' first, wherever asked),
         *     answered as `POST /questions/{id}/answer` answers it (a permission question by its words,
         *     else 422).
         *     In a work conversation the person's message goes to its Claude Code session without
         *     waiting: a prompt, or the answer to the permission question it replies to.
         *     A chat conversation takes `POST /chat` instead (409).
         */
        post: operations["post_to_conversation_api__user_id__conversations__conversation_id__messages_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/model": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Choose Model
         * @description From the next reply on; a name not offered now is a 422 (`model_not_offered`).
         */
        put: operations["choose_model_api__user_id__conversations__conversation_id__model_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/mute": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Mute
         * @description Mute (`{"muted": true}`) or unmute a conversation: nothing in a muted one notifies.
         */
        put: operations["set_mute_api__user_id__conversations__conversation_id__mute_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/pinned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set Pinned
         * @description Pin it at the top of the conversation list, or unpin it.
         */
        put: operations["set_pinned_api__user_id__conversations__conversation_id__pinned_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark Read
         * @description The person has read up to `message_id` (the position never moves back).
         */
        post: operations["mark_read_api__user_id__conversations__conversation_id__read_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop
         * @description End the reply being written now: what it wrote so far is stored, marked
         *     `meta.stopped`, and the conversation is free at once. `stopped` is false when no reply
         *     was running. In a work conversation: interrupt Claude Code's current prompt.
         */
        post: operations["stop_api__user_id__conversations__conversation_id__stop_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/work": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Work
         * @description The session of a work conversation (`null` for other conversations).
         */
        get: operations["get_work_api__user_id__conversations__conversation_id__work_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/conversations/{conversation_id}/work/end": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End
         * @description End the session: answered once it is recorded ended (run completed, status ended)
         *     and its process tree has been sent SIGKILL. Writing again starts the next session, with
         *     the earlier turns resumed. The person's own act: an agent's token is refused, as by the
         *     `end_work_session` tool.
         */
        post: operations["end_api__user_id__conversations__conversation_id__work_end_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Thread
         * @description The thread; with `wait`, returns once it closes or has a question for the parent.
         *     Waiting counts as its agent being heard from (its run does not go silent meanwhile).
         */
        get: operations["get_thread_api__user_id__delegations__thread_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/{thread_id}/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge
         * @description The child took up the delegation it claimed: it is no longer re-delivered and its
         *     claim no longer lapses (any first write or read of the thread does the same).
         */
        post: operations["acknowledge_api__user_id__delegations__thread_id__ack_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/{thread_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel Thread
         * @description The parent agent or the person cancels the thread.
         */
        post: operations["cancel_thread_api__user_id__delegations__thread_id__cancel_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/{thread_id}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete Thread
         * @description The child ends the thread with its result (`text`).
         */
        post: operations["complete_thread_api__user_id__delegations__thread_id__complete_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/{thread_id}/escalate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Escalate Thread
         * @description The child hands the thread back to the person: `text` is the reason, also asked in the person's inbox.
         */
        post: operations["escalate_thread_api__user_id__delegations__thread_id__escalate_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/{thread_id}/fail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fail Thread
         * @description The child ends the thread as failed; `text` says why.
         */
        post: operations["fail_thread_api__user_id__delegations__thread_id__fail_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/{thread_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read Thread
         * @description Long-polls like a run's messages.
         */
        get: operations["read_thread_api__user_id__delegations__thread_id__messages_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/delegations/next": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Next Delegation
         * @description Claim the oldest pending delegation addressed to your agent (each goes to exactly one
         *     caller); waits up to `wait` seconds for one; `{"delegation": null}` if none came. The
         *     claim holds once you act in the thread (write, status, read, or `POST .../ack`); until
         *     then the same `claimer` gets it again first, and after PARLEY_CLAIM_LEASE_SECONDS it is
         *     open to every process of your agent again.
         */
        get: operations["next_delegation_api__user_id__delegations_next_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Person Stream
         * @description Starts with `ready` (`id:` = the cursor it starts from; from now without a cursor),
         *     then every change after it; reconnect with `Last-Event-ID` to get exactly the missed ones.
         *     Each event carries the current state of what changed.
         */
        get: operations["person_stream_api__user_id__events_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/inbox": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Inbox
         * @description The person's inbox conversation, created on first use.
         */
        get: operations["get_inbox_api__user_id__inbox_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/inbox/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post To Inbox
         * @description Write into the inbox (created on first use): what an agent says first.
         */
        post: operations["post_to_inbox_api__user_id__inbox_messages_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/instructions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Instructions */
        get: operations["get_instructions_api__user_id__instructions_get"];
        /**
         * Set Instructions
         * @description Over INSTRUCTIONS_MAX_CHARS is a 422 and the stored ones stay.
         */
        put: operations["set_instructions_api__user_id__instructions_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Models
         * @description Never fails for the provider: when it is down, what is known is listed.
         */
        get: operations["list_models_api__user_id__models_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/notification-preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Preferences
         * @description Which kinds notify (questions and failed runs by default; inbox messages only when
         *     turned on), which conversations are muted, and whether this server sends email at all.
         */
        get: operations["get_preferences_api__user_id__notification_preferences_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Patch Preferences
         * @description Turn kinds on or off; kinds not named keep their setting.
         */
        patch: operations["patch_preferences_api__user_id__notification_preferences_patch"];
        trace?: never;
    };
    "/api/{user_id}/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Passkeys */
        get: operations["list_passkeys_api__user_id__passkeys_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/passkeys/{passkey_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete Passkey
         * @description Needs a sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`).
         */
        delete: operations["delete_passkey_api__user_id__passkeys__passkey_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/permission-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request Permission
         * @description Ask whether Claude Code may make this tool call. A rule of the person's decides at
         *     once (`status: "decided"`); otherwise a permission question goes to their inbox and
         *     this answers `status: "pending"` with its `id`: long-poll `GET .../{id}?wait=`. The same
         *     `tool_use_id` again (from the same agent) is the same request, however often it is sent.
         */
        post: operations["request_permission_api__user_id__permission_requests_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/permission-requests/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Permission Request
         * @description The request; with `wait`, returned as soon as it is decided (the person answered, or
         *     its question timed out with its default), else after `wait` seconds still `pending`.
         *     Only the agent that asked and its person see it (anyone else: 404).
         */
        get: operations["get_permission_request_api__user_id__permission_requests__request_id__get"];
        put?: never;
        post?: never;
        /**
         * Withdraw Permission Request
         * @description The asking agent stopped waiting (Claude Code ended its hook: Esc in the terminal, a
         *     stopped run): an open question closes, so the person is not asked about a call that no
         *     longer waits; a decided request is returned as it was. Only the agent that asked and its
         *     person (anyone else: 404).
         */
        delete: operations["withdraw_permission_request_api__user_id__permission_requests__request_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/push-subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Subscriptions
         * @description The person's devices that receive notifications, oldest first.
         */
        get: operations["list_subscriptions_api__user_id__push_subscriptions_get"];
        put?: never;
        /**
         * Add Subscription
         * @description Notify this device: the browser's PushSubscription JSON (`endpoint`, `keys.p256dh`,
         *     `keys.auth`) and an optional `label`. Posting the same endpoint again renews its keys
         *     (200). An endpoint at a host that is not a known push service is 422
         *     (`push_service_not_allowed`).
         */
        post: operations["add_subscription_api__user_id__push_subscriptions_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/push-subscriptions/{subscription_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove Subscription
         * @description Stop notifying this device; pushes not yet sent to it are dropped.
         */
        delete: operations["remove_subscription_api__user_id__push_subscriptions__subscription_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/questions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Open Questions
         * @description What waits on the person: their open questions wherever they were asked (inbox, runs,
         *     threads, work sessions' permission requests), oldest first, at most 100. An agent's
         *     token lists only the questions that agent asked.
         */
        get: operations["list_open_questions_api__user_id__questions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/questions/{question_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Question
         * @description The question and its answer. With `wait`, returns as soon as it is answered, timed
         *     out or closed, else after `wait` seconds with `status: "open"` (ask again).
         */
        get: operations["get_question_api__user_id__questions__question_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/questions/{question_id}/answer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer Question
         * @description Answer one of the person's questions, with `text`, or, for a work session's
         *     permission request, with `decision` (`allow`, `allow_session`, `deny`; text such as
         *     "yes" or "no" decides too). The answer is stored once as a `kind=answer` message
         *     replying to the question; a question already answered, timed out or closed is 409
         *     (`already_answered`, `question_closed`) and nothing is stored. Only the person answers:
         *     an agent's token is 403. A permission decision reaches its session at once. A service
         *     worker answering from a notification names its device (`X-Parley-Device`: the push
         *     subscription's id); it is kept with the answer (`meta.device`) when it is one of the
         *     person's own devices, and ignored otherwise. The audit trail records the answer as
         *     through `push_action` (with `X-Parley-Device`), `email_link` (`X-Parley-Via:
         *     email_link`, sent by the web UI for a question an emailed link opened), else `web` for
         *     the session cookie and `rest` for a bearer credential.
         */
        post: operations["answer_question_api__user_id__questions__question_id__answer_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Runs
         * @description Newest first (at most 500).
         */
        get: operations["list_runs_api__user_id__runs_get"];
        put?: never;
        /**
         * Start Run
         * @description Start a run as the token's agent (a person's token gets 403), with its own `run`
         *     conversation.
         */
        post: operations["start_run_api__user_id__runs_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get Run */
        get: operations["get_run_api__user_id__runs__run_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/runs/{run_id}/delegations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delegate
         * @description From your run, hand `task` to `agent`: a `delegation` thread and a child run, pending
         *     until one of that agent's processes claims it (`GET .../delegations/next`).
         */
        post: operations["delegate_api__user_id__runs__run_id__delegations_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/runs/{run_id}/finish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish Run
         * @description End the run; its conversation becomes read-only (409 on any later write).
         */
        post: operations["finish_run_api__user_id__runs__run_id__finish_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/runs/{run_id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read Run
         * @description Messages after `after`, at once if any; else waits up to `wait` seconds (at most
         *     PARLEY_LONG_POLL_MAX) for the first to arrive, from any instance; else `[]`.
         */
        get: operations["read_run_api__user_id__runs__run_id__messages_get"];
        put?: never;
        /**
         * Post To Run
         * @description Write into the run's conversation (as its agent, or as the person); 409 once it ended.
         */
        post: operations["post_to_run_api__user_id__runs__run_id__messages_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/runs/{run_id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report Status
         * @description A `status` message (with `meta.progress`, 0-100) and the run's latest status.
         */
        post: operations["report_status_api__user_id__runs__run_id__status_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search
         * @description The caller's conversations, one row each, best first: those whose messages have the
         *     words of `q`, each typed word the start of a word (several words all match, "a phrase" in
         *     quotes, -word excludes, `a or b`), or, when none has, words like them (a typo); and those
         *     whose title holds `q`. Each row carries its best-matching message's snippet and where the
         *     words are in it (`marks`). Only the caller's own conversations are ever searched.
         */
        get: operations["search_api__user_id__search_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Sessions
         * @description Signed-in browsers, most recently seen first; `current` is this one.
         */
        get: operations["list_sessions_api__user_id__sessions_get"];
        put?: never;
        post?: never;
        /**
         * End Other Sessions
         * @description Signs out every other browser (after changing a passkey, say); this one stays. Needs
         *     a sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`).
         */
        delete: operations["end_other_sessions_api__user_id__sessions_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End Session
         * @description Signs that browser out, on every instance within a second. Another browser's session
         *     ends only for someone who signed in within PARLEY_REAUTH_MINUTES (403
         *     `reauth_required`): a stolen session cannot sign its owner out; this one's always ends.
         */
        delete: operations["end_session_api__user_id__sessions__session_id__delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List Tasks */
        get: operations["list_tasks_api__user_id__tasks_get"];
        put?: never;
        /** Add Task */
        post: operations["add_task_api__user_id__tasks_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/{user_id}/tasks/{number}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete Task */
        delete: operations["delete_task_api__user_id__tasks__number__delete"];
        options?: never;
        head?: never;
        /** Update Task */
        patch: operations["update_task_api__user_id__tasks__number__patch"];
        trace?: never;
    };
    "/api/{user_id}/work/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Usage
         * @description Per conversation (the most recent first) and in all; a deleted conversation's stay,
         *     without a title: what was spent stays spent.
         */
        get: operations["get_usage_api__user_id__work_usage_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/all-sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End All Sessions
         * @description Signs everyone out of every browser, but this admin's current session.
         */
        delete: operations["end_all_sessions_api_admin_all_sessions_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/invites": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create Invite
         * @description A one-time sign-up link (`<web origin>/invite/<token>`), valid PARLEY_INVITE_DAYS.
         */
        post: operations["create_invite_api_admin_invites_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{user_id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable User
         * @description The account is refused everywhere at once: its sessions end, its keys and tokens fail.
         */
        post: operations["disable_user_api_admin_users__user_id__disable_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{user_id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable User */
        post: operations["enable_user_api_admin_users__user_id__enable_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/users/{user_id}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * End User Sessions
         * @description Signs the person out of every browser (not disabled: they may sign in again). An
         *     admin's own current session is kept.
         */
        delete: operations["end_user_sessions_api_admin_users__user_id__sessions_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Auth Config
         * @description How people can sign in here (public): what the sign-in page offers.
         */
        get: operations["auth_config_api_auth_config_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/dev-login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dev Login
         * @description Signs in as any name (making its account if it has none) when PARLEY_DEV_LOGIN=1, from
         *     this machine only; 404 otherwise. Sets the session cookie; the token is for scripts.
         */
        post: operations["dev_login_api_auth_dev_login_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change Email
         * @description Sets (or, with null, removes) the account's email. A new one is unverified until its
         *     link is used; 409 `email_taken` when another account verified it. Needs a sign-in within
         *     PARLEY_REAUTH_MINUTES (403 `reauth_required`).
         */
        put: operations["change_email_api_auth_email_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/email/verification": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send Verification
         * @description Mails a link to the account's email that verifies it: once, for
         *     PARLEY_EMAIL_LINK_MINUTES, opened signed in to this account. At most one a minute (429);
         *     404 `email_not_configured` without PARLEY_SMTP_URL.
         */
        post: operations["send_verification_api_auth_email_verification_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/email/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify Email
         * @description Uses an emailed link's token: 403 `wrong_account` when the link is another account's
         *     (it stays usable), 404 `link_expired` when used, expired or for a former email.
         */
        post: operations["verify_email_api_auth_email_verify_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/invites/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Invite Info
         * @description What an invite link is for (public: the token is the secret); 404 once used.
         */
        get: operations["invite_info_api_auth_invites__token__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Login
         * @description Sets the session cookie. `login` with '@' is an account's verified email (never a user
         *     id), else a user id. Any wrong name, email or password (or an email not verified) is the
         *     same 401 `invalid_credentials`; repeated failures answer 429 with `Retry-After`.
         */
        post: operations["login_api_auth_login_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login/second-factor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Login Second Factor
         * @description The second step of a password sign-in with an authenticator app on: the `challenge`
         *     of the 401 `second_factor_required` and a code of the app (or a recovery code). Sets the
         *     session cookie. A wrong code is 401 `invalid_code` and counts against the sign-in limits
         *     (429 with `Retry-After` past them); an unknown, used or expired challenge is 401
         *     `challenge_expired`.
         */
        post: operations["login_second_factor_api_auth_login_second_factor_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Logout
         * @description Ends this browser's session (its row is deleted) and clears the cookie.
         */
        post: operations["logout_api_auth_logout_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Me */
        get: operations["me_api_auth_me_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Oidc Callback
         * @description Where the provider sends the browser back: signs in (session cookie) and goes on to
         *     `next` (with `auth_notice=sso_new_account` when it made a new account although one here
         *     has the identity's user name or email); on failure, to `/?auth_error=<code>`. A link
         *     flow signs nobody in: it goes on to `next` with `sso_link=linked` or `sso_link=<code>`.
         */
        get: operations["oidc_callback_api_auth_oidc_callback_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Oidc Link
         * @description Starts linking a single sign-on identity to the signed-in account: the UI sends the
         *     browser to `redirect_to` (the provider), which comes back to the callback, which links
         *     the identity (refused if it is another account's) and returns to `next` with
         *     `?sso_link=linked` or `?sso_link=<error code>`. 409 `sso_already_linked` when the
         *     account has one; 403 `reauth_required` without a sign-in within PARLEY_REAUTH_MINUTES.
         */
        post: operations["oidc_link_api_auth_oidc_link_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Oidc Login
         * @description Sends the browser to the provider (code flow, PKCE S256, state, nonce). `next`: where
         *     to land afterwards (a path on this site); `invite`: an invite token to sign up with;
         *     `reauth=true`: the provider must authenticate the person afresh (`prompt=login`,
         *     `max_age=0`, its `auth_time` checked), which is how someone who signs in only this way
         *     confirms it is them.
         */
        get: operations["oidc_login_api_auth_oidc_login_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys/login/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Login Options
         * @description PublicKeyCredentialRequestOptions (JSON) for a discoverable passkey.
         */
        post: operations["login_options_api_auth_passkeys_login_options_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys/login/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Login Verify
         * @description Signs in the passkey's owner: sets the session cookie.
         */
        post: operations["login_verify_api_auth_passkeys_login_verify_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys/register/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register Options
         * @description PublicKeyCredentialCreationOptions (JSON) for `navigator.credentials.create`. Needs a
         *     sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`).
         */
        post: operations["register_options_api_auth_passkeys_register_options_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys/register/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register Verify
         * @description Stores the new passkey (the browser's registration response, as JSON).
         */
        post: operations["register_verify_api_auth_passkeys_register_verify_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change Password
         * @description Sets a new password and ends the person's other web sessions. A wrong current
         *     password counts against the sign-in limits (429 with `Retry-After` past them). An
         *     account without a password sets one only within PARLEY_REAUTH_MINUTES of signing in
         *     (403 `reauth_required`).
         */
        post: operations["change_password_api_auth_password_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/second-factor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Status */
        get: operations["status_api_auth_second_factor_get"];
        put?: never;
        /**
         * Begin
         * @description A new secret for an authenticator app: its otpauth:// URI and the base32 secret,
         *     shown only now. Nothing changes at sign-in until a code confirms it. Needs a sign-in
         *     within PARLEY_REAUTH_MINUTES (403 `reauth_required`); 409 `second_factor_on` when on.
         */
        post: operations["begin_api_auth_second_factor_post"];
        /**
         * Disable
         * @description Turns the app off (its recovery codes go with it). Needs a recent sign-in.
         */
        delete: operations["disable_api_auth_second_factor_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/second-factor/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Confirm
         * @description Turns the app on with a code it shows; answers the ten recovery codes, shown only
         *     now. 422 `invalid_code` for a wrong code.
         */
        post: operations["confirm_api_auth_second_factor_confirm_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Signup
         * @description A new account (open sign-up, or with an admin's invite), signed in at once. The user
         *     id never holds '@'; an invite's email is the account's (verified), and a different one
         *     in the body is 403 `invite_email_mismatch`.
         */
        post: operations["signup_api_auth_signup_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/device/decision": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide
         * @description Approve (the terminal's next poll gets a token for this person, once) or deny.
         *     Approving needs a sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`, the code
         *     left waiting).
         */
        post: operations["decide_api_device_decision_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/device/lookup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lookup
         * @description What the code asks for, and whether approving needs a fresh sign-in. A wrong code is
         *     a guess counted against the person and their address (429 past the free ones).
         */
        post: operations["lookup_api_device_lookup_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health */
        get: operations["health_api_health_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/oauth/requests/{request}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Show Request
         * @description The pending authorization the consent page asks the signed-in person about, and
         *     whether they must sign in again before allowing it (`reauth_required`).
         */
        get: operations["show_request_api_oauth_requests__request__get"];
        put?: never;
        /**
         * Decide Request
         * @description Allow (the client then acts as `agent`, never as the person) or deny, once. The page
         *     posts a plain form and the answer is the redirect itself, so the web UI never takes a URL
         *     from a response and navigates to it; only a redirect URI the rules accept is used.
         *     Allowing needs a sign-in within PARLEY_REAUTH_MINUTES (403 `reauth_required`, the request
         *     left answerable): a stolen session cannot connect an app of its own that outlives it.
         */
        post: operations["decide_request_api_oauth_requests__request__post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/push/vapid-public-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Vapid Public Key
         * @description The key a browser subscribes with (`applicationServerKey`); the same on every
         *     instance.
         */
        get: operations["vapid_public_key_api_push_vapid_public_key_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/question-links/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open Question Link
         * @description An emailed reminder's link: good once and for a short while, it opens the question in
         *     the web UI (which asks the person to sign in first if they are not; the link itself
         *     signs nobody in). Used or expired: 404 (`link_expired`). `via=email_link` tells the web
         *     UI to say so when it answers (the audit trail's channel).
         */
        get: operations["open_question_link_api_question_links__token__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** AccountOut */
        AccountOut: {
            /** Email */
            email: string | null;
            /** Is Admin */
            is_admin: boolean;
            /** User Id */
            user_id: string;
        };
        /** AgentKeyCreate */
        AgentKeyCreate: {
            /** Agent */
            agent: string;
            /**
             * Expires At
             * @description With a time zone; in the future
             */
            expires_at?: string | null;
        };
        /** AgentKeyCreated */
        AgentKeyCreated: {
            /** Agent */
            agent: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Expires At */
            expires_at: string | null;
            /** Id */
            id: number;
            /** Last Used At */
            last_used_at: string | null;
            /** Prefix */
            prefix: string;
            /**
             * Secret
             * @description Shown once: send it as `Authorization: Bearer <secret>`
             */
            secret: string;
        };
        /** AgentKeyOut */
        AgentKeyOut: {
            /** Agent */
            agent: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Expires At */
            expires_at: string | null;
            /** Id */
            id: number;
            /** Last Used At */
            last_used_at: string | null;
            /** Prefix */
            prefix: string;
        };
        /** AlwaysOut */
        AlwaysOut: {
            answer: components["schemas"]["PostedOut"];
            rule: components["schemas"]["RuleOut"];
        };
        /** ArchivedIn */
        ArchivedIn: {
            /**
             * Archived
             * @description true: out of the list (restorable); false: restored
             */
            archived: boolean;
        };
        /** AttachmentLimits */
        AttachmentLimits: {
            /**
             * Images
             * @description Whether the model that answers chats takes images
             */
            images: boolean;
            /**
             * Max Bytes
             * @description PARLEY_MAX_ATTACHMENT_BYTES: the largest file taken
             */
            max_bytes: number;
            /** Max Per Message */
            max_per_message: number;
            /**
             * Model
             * @description That model's name, for the composer's explanation
             */
            model: string;
        };
        /**
         * AttachmentOut
         * @description An uploaded attachment: what `POST /chat` takes by `id`, and what a message's
         *     `meta.attachments` lists.
         */
        AttachmentOut: {
            /**
             * Content Type
             * @description What the bytes were found to be
             */
            content_type: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: number;
            /**
             * Kind
             * @enum {string}
             */
            kind: "text" | "image";
            /**
             * Name
             * @description The name kept: its last path segment, no control characters
             */
            name: string;
            /**
             * Size
             * @description Bytes
             */
            size: number;
        };
        /**
         * AuditEventOut
         * @description One decision on a question or permission request.
         */
        AuditEventOut: {
            /**
             * Agent
             * @description The agent that asked (`claude-code`: a work session)
             */
            agent: string | null;
            /**
             * Answer
             * @description The answer's text (first 2000 characters)
             */
            answer: string | null;
            /**
             * Asked
             * @description The question's text (its first 2000 characters)
             */
            asked: string;
            /**
             * Asked At
             * Format: date-time
             */
            asked_at: string;
            /** Conversation Id */
            conversation_id: number | null;
            /**
             * Decided At
             * Format: date-time
             */
            decided_at: string;
            /**
             * Decided By
             * @enum {string}
             */
            decided_by: "person" | "rule" | "timeout_default" | "agent";
            /**
             * Decider
             * @description The agent that decided (a parent for its child)
             */
            decider: string | null;
            /**
             * Decision
             * @description `answer`: a question's text answer; `timed_out`: nobody answered and there was no default; `withdrawn`: the agent took it back
             * @enum {string}
             */
            decision: "allow" | "allow_session" | "deny" | "answer" | "timed_out" | "withdrawn";
            /**
             * Device Id
             * @description The push subscription a notification's button
             */
            device_id: number | null;
            /** Id */
            id: number;
            /**
             * Kind
             * @enum {string}
             */
            kind: "question" | "permission";
            /**
             * Machine
             * @description The machine it asked from, when it said
             */
            machine: string | null;
            /**
             * Question Id
             * @description None for a call a rule decided unasked
             */
            question_id: number | null;
            /** Rule Id */
            rule_id: number | null;
            /** Rule Pattern */
            rule_pattern: string | null;
            /**
             * Session Id
             * @description The web session, answered from the web UI
             */
            session_id: number | null;
            /**
             * Tool
             * @description A permission request's tool
             */
            tool: string | null;
            /**
             * Tool Input
             * @description Its input; past 4000 characters of JSON, `{truncated: true, preview}`
             */
            tool_input: unknown;
            /** User Id */
            user_id: string;
            /**
             * Via
             * @enum {string}
             */
            via: "web" | "push_action" | "email_link" | "mcp" | "rest" | "rule" | "timeout";
            /** Waited Ms */
            waited_ms: number;
        };
        /** AuditPage */
        AuditPage: {
            /** Events */
            events: components["schemas"]["AuditEventOut"][];
            /**
             * Next Cursor
             * @description Ask again with it as `cursor` for older events; null: no more
             */
            next_cursor: number | null;
        };
        /** AuthConfig */
        AuthConfig: {
            /** Dev Login */
            dev_login: boolean;
            /**
             * Email Verification
             * @description Whether this server can mail a link that verifies an email
             * @default false
             */
            email_verification: boolean;
            /** Oidc */
            oidc: boolean;
            /** Oidc Name */
            oidc_name: string | null;
            /**
             * Passkeys
             * @default true
             */
            passkeys: boolean;
            /**
             * Signup
             * @enum {string}
             */
            signup: "open" | "invite" | "closed";
        };
        /** BranchesOut */
        BranchesOut: {
            /**
             * Branches
             * @description The shown branch's forks, in order
             */
            branches: components["schemas"]["BranchOut"][];
            /**
             * Version
             * @description The conversation's version after a switch
             */
            version?: number | null;
        };
        /**
         * BranchOut
         * @description A fork of the conversation: a shown message and its siblings (edits of one message,
         *     or replies to one question), oldest first; the switcher (n of m).
         */
        BranchOut: {
            /**
             * Message Id
             * @description The sibling on the shown branch
             */
            message_id: number;
            /**
             * Siblings
             * @description Every sibling's id, oldest first, shown one too
             */
            siblings: number[];
        };
        /** BranchRequest */
        BranchRequest: {
            /**
             * Message Id
             * @description A message of the conversation kept off the branch it shows (a sibling of a shown message): its branch is shown from now on, everywhere
             */
            message_id: number;
        };
        /**
         * ChatRequest
         * @description A message, or (`retry`) no message and the conversation whose failed turn to re-run,
         *     or (`replaces`) an edit or a regenerated reply on a new branch of the conversation.
         */
        ChatRequest: {
            /**
             * Attachments
             * @description Ids of the person's uploaded attachments (`POST /attachments`) sent with this message, each at most once in all: 404 attachment_not_found for one that is not theirs, 409 attachment_already_sent, 422 model_takes_no_images; nothing is stored then. Chat conversations only.
             */
            attachments?: number[];
            /** Conversation Id */
            conversation_id?: number | null;
            /**
             * Message
             * @description What the person says; trimmed, never empty, at most PARLEY_MAX_MESSAGE_CHARS characters (longer is a 413). Required unless `retry`, or `replaces` names a reply.
             */
            message?: string | null;
            /**
             * Replaces
             * @description A message on the branch the chat shows, replaced on a new branch of the same conversation: with `message`, one the person wrote (edit: the new text is its sibling); without, a reply (regenerate: the new reply is its sibling). What followed it stays stored, a switch away (POST .../branch). Needs `conversation_id`; 422 for another message, 409 branch_moved when it is no longer shown.
             */
            replaces?: number | null;
            /**
             * Retry
             * @description Re-run the conversation's last turn, which failed, on its stored message (no `message`); 409 nothing_to_retry if it did not fail
             * @default false
             */
            retry: boolean;
        };
        /** ChatResponse */
        ChatResponse: {
            /** Conversation Id */
            conversation_id: number;
            /** Response */
            response: string;
            /** Tool Calls */
            tool_calls: components["schemas"]["ToolCallRecord"][];
        };
        /** ConnectedAppOut */
        ConnectedAppOut: {
            /** Agent */
            agent: string;
            /** Client Host */
            client_host: string;
            /** Client Id */
            client_id: string;
            /** Client Name */
            client_name: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: number;
            /** Last Used At */
            last_used_at: string | null;
        };
        /**
         * ConsentDecision
         * @description The consent page's form (`application/x-www-form-urlencoded`): the button pressed.
         */
        ConsentDecision: {
            /**
             * Agent
             * @description Required when allowing: the agent the client acts as (1-64 letters, digits, '_', '.', '@' or '-')
             */
            agent?: string | null;
            /**
             * Decision
             * @enum {string}
             */
            decision: "allow" | "deny";
        };
        /**
         * ConsentRequest
         * @description What the consent page shows before the person allows or denies.
         */
        ConsentRequest: {
            /**
             * Agent
             * @description The agent name suggested for what the client writes
             */
            agent: string;
            /**
             * Client Host
             * @description The host of the client's id URL, else of its redirect (never user info)
             */
            client_host: string;
            /** Client Id */
            client_id: string;
            /** Client Name */
            client_name: string;
            /**
             * Grant Days
             * @description The longest the app keeps access before asking again (days)
             * @default 0
             */
            grant_days: number;
            /**
             * Reauth Methods
             * @description How the person can sign in again: password, passkey, sso, dev
             */
            reauth_methods?: string[];
            /**
             * Reauth Required
             * @description Allowing needs a sign-in within PARLEY_REAUTH_MINUTES: the page asks the person to confirm it is them first (denying never does)
             * @default false
             */
            reauth_required: boolean;
            /**
             * Redirect Kind
             * @description web: an https site; loopback: a program on the person's own computer; native: an app on their device (a private-use scheme)
             * @enum {string}
             */
            redirect_kind: "web" | "loopback" | "native";
            /** Redirect Uri */
            redirect_uri: string;
            /**
             * Refresh Days
             * @description How long the app keeps access without being used (days)
             * @default 0
             */
            refresh_days: number;
            /** Resource */
            resource: string;
        };
        /** ConversationCreate */
        ConversationCreate: {
            /**
             * Mode
             * @default chat
             * @enum {string}
             */
            mode: "chat" | "work";
            /**
             * Title
             * @description Optional: the first message names it otherwise
             */
            title?: string | null;
        };
        /**
         * ConversationMode
         * @enum {string}
         */
        ConversationMode: "chat" | "work" | "inbox" | "run" | "delegation";
        /** ConversationOut */
        ConversationOut: {
            /**
             * Archived At
             * @description When the person archived it (out of the list); null if not
             */
            archived_at?: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: number;
            /** Last Message At */
            last_message_at: string | null;
            /**
             * Last Read Id
             * @description The person's read position (0: nothing read): an unread divider goes after it
             */
            last_read_id: number;
            mode: components["schemas"]["ConversationMode"];
            /**
             * Model
             * @description The model chosen for its replies (null: the configured one)
             */
            model?: string | null;
            /**
             * Pinned At
             * @description When the person pinned it (at the list's top); null if not
             */
            pinned_at?: string | null;
            /** Preview */
            preview: string | null;
            /** Title */
            title: string;
            /**
             * Unread
             * @description Messages from others after the stored read position
             */
            unread: number;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /** Version */
            version: number;
            work?: components["schemas"]["WorkState"] | null;
        };
        /** ConversationPatch */
        ConversationPatch: {
            /** Title */
            title: string;
        };
        /** ConversationUsage */
        ConversationUsage: {
            /**
             * Cache Creation Input Tokens
             * @default 0
             */
            cache_creation_input_tokens: number;
            /**
             * Cache Read Input Tokens
             * @default 0
             */
            cache_read_input_tokens: number;
            /** Conversation Id */
            conversation_id: number;
            /**
             * Input Tokens
             * @default 0
             */
            input_tokens: number;
            /**
             * Output Tokens
             * @default 0
             */
            output_tokens: number;
            /**
             * Requests
             * @default 0
             */
            requests: number;
            /** Title */
            title: string | null;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /** DelegationCreate */
        DelegationCreate: {
            /**
             * Agent
             * @description The agent the task is for: its token's agent name (1-64 characters of letters, digits, '_', '.', '@', '-')
             */
            agent: string;
            /** Task */
            task: string;
            /**
             * Timeout S
             * @description Seconds for one of its processes to claim it
             * @default 3600
             */
            timeout_s: number;
        };
        /** DelegationOut */
        DelegationOut: {
            /**
             * Acked At
             * @description When the child first acted in the thread; until then its claim may lapse
             */
            acked_at?: string | null;
            /** Child Agent */
            child_agent: string;
            /** Child Run Id */
            child_run_id: number | null;
            /** Claimed At */
            claimed_at: string | null;
            /** Closed At */
            closed_at: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** @description The child's question waiting for an answer, if any */
            open_question?: components["schemas"]["MessageOut"] | null;
            /** Parent Agent */
            parent_agent: string;
            /** Parent Run Id */
            parent_run_id: number | null;
            /** Result */
            result: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "pending" | "claimed" | "completed" | "failed" | "escalated" | "cancelled" | "timed_out";
            /** Task */
            task: string;
            /** Thread Id */
            thread_id: number;
            /**
             * Timeout At
             * Format: date-time
             */
            timeout_at: string;
        };
        /** DeviceCodeIn */
        DeviceCodeIn: {
            /**
             * User Code
             * @description The code the terminal shows (XXXX-XXXX; any case, dash or not)
             */
            user_code: string;
        };
        /** DeviceDecisionIn */
        DeviceDecisionIn: {
            /**
             * Decision
             * @enum {string}
             */
            decision: "allow" | "deny";
            /**
             * User Code
             * @description The code the terminal shows (XXXX-XXXX; any case, dash or not)
             */
            user_code: string;
        };
        /** DeviceDecisionOut */
        DeviceDecisionOut: {
            /** Application */
            application: string;
            /**
             * Decision
             * @enum {string}
             */
            decision: "allow" | "deny";
            /** Machine */
            machine: string;
        };
        /**
         * DeviceRequestOut
         * @description What a waiting code asks for, to the person who entered it.
         */
        DeviceRequestOut: {
            /**
             * Application
             * @description What asks to act for the person: 'Claude Code'
             */
            application: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Expires At
             * Format: date-time
             */
            expires_at: string;
            /**
             * Machine
             * @description The machine it says it runs on (a host name)
             */
            machine: string;
            /** Reauth Methods */
            reauth_methods?: string[];
            /**
             * Reauth Required
             * @description Approving needs a sign-in within PARLEY_REAUTH_MINUTES: the page asks the person to confirm it is them first (denying never does)
             * @default false
             */
            reauth_required: boolean;
        };
        /**
         * DevLoginOut
         * @description Also sets the session cookie; the token is for scripts, never for the web UI.
         */
        DevLoginOut: {
            /** Token */
            token: string;
            /** User Id */
            user_id: string;
        };
        /** DevLoginRequest */
        DevLoginRequest: {
            /**
             * User Id
             * @description Made if it does not exist: 1-64 letters, digits, '_', '.' or '-', not only dots
             */
            user_id: string;
        };
        /** EmailChange */
        EmailChange: {
            /**
             * Email
             * @description null removes it
             */
            email: string | null;
        };
        /** EmailState */
        EmailState: {
            /** Email */
            email: string | null;
            /** Email Verified */
            email_verified: boolean;
        };
        /** EmailVerify */
        EmailVerify: {
            /**
             * Token
             * @description From the emailed link
             */
            token: string;
        };
        /** ErrorBody */
        ErrorBody: {
            /** Code */
            code: string;
            /** Message */
            message: string;
        } & {
            [key: string]: unknown;
        };
        /** ErrorResponse */
        ErrorResponse: {
            error: components["schemas"]["ErrorBody"];
        };
        /** HealthResponse */
        HealthResponse: {
            /**
             * Database
             * @enum {string}
             */
            database: "ok" | "unavailable";
            /** Dev Login */
            dev_login: boolean;
            /** Model */
            model: string;
            /** Offline Model */
            offline_model: boolean;
            /**
             * Status
             * @enum {string}
             */
            status: "ok" | "degraded";
            work: components["schemas"]["WorkHealth"];
        };
        /** HTTPValidationError */
        HTTPValidationError: {
            /** Detail */
            detail?: components["schemas"]["ValidationError"][];
        };
        /** InstructionsIn */
        InstructionsIn: {
            /**
             * Text
             * @description Given to the assistant on every turn of yours; empty: none
             */
            text: string;
        };
        /** InstructionsOut */
        InstructionsOut: {
            /**
             * Max Chars
             * @default 4000
             */
            max_chars: number;
            /** Text */
            text: string;
        };
        /** InviteCreate */
        InviteCreate: {
            /** Email */
            email?: string | null;
            /**
             * Is Admin
             * @default false
             */
            is_admin: boolean;
            /**
             * User Id
             * @description Only this user id may sign up with it
             */
            user_id?: string | null;
        };
        /** InviteInfo */
        InviteInfo: {
            /** Email */
            email: string | null;
            /** User Id */
            user_id: string | null;
        };
        /** InviteOut */
        InviteOut: {
            /**
             * Expires At
             * Format: date-time
             */
            expires_at: string;
            /** Id */
            id: number;
            /** Url */
            url: string;
        };
        /** LoginRequest */
        LoginRequest: {
            /**
             * Login
             * @description user id or email
             */
            login: string;
            /** Password */
            password: string;
        };
        /** MeOut */
        MeOut: {
            /** Agent */
            agent: string | null;
            /** Email */
            email: string | null;
            /**
             * Email Verified
             * @description Only a verified email signs in by email or lets single sign-on join
             */
            email_verified: boolean;
            /** Is Admin */
            is_admin: boolean;
            /**
             * Sso Linked
             * @description Whether a single sign-on identity is linked
             */
            sso_linked: boolean;
            /** User Id */
            user_id: string;
            /**
             * Via
             * @enum {string}
             */
            via: "session" | "bearer";
        };
        /** MessageCreate */
        MessageCreate: {
            /**
             * Kind
             * @description `question` (agents only) opens a wait for the person's answer
             * @default message
             * @enum {string}
             */
            kind: "message" | "question" | "answer" | "status";
            /**
             * Reply To
             * @description The message this one answers
             */
            reply_to?: number | null;
            /**
             * Text
             * @description Trimmed, never empty, at most PARLEY_MAX_MESSAGE_CHARS characters (longer is a 413)
             */
            text: string;
            /**
             * Timeout S
             * @description Questions only: seconds until it times out
             */
            timeout_s?: number | null;
        };
        /**
         * MessageKind
         * @enum {string}
         */
        MessageKind: "message" | "status" | "question" | "answer" | "delegation" | "completion" | "error" | "escalation" | "output";
        /** MessageOut */
        MessageOut: {
            /**
             * Author
             * @description The agent that wrote it (agents only)
             */
            author: string | null;
            /** Content */
            content: string;
            /** Conversation Id */
            conversation_id: number;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Error */
            error: boolean;
            /** Id */
            id: number;
            /**
             * @description `question` waits for an answer; `status`, `delegation`, `completion`, `escalation`, `output` and `error` are written by agents, threads and work sessions
             * @default message
             */
            kind: components["schemas"]["MessageKind"];
            /** Meta */
            meta: {
                [key: string]: unknown;
            } | null;
            /**
             * Parent Id
             * @description The message it follows on its branch (None: a first message). An edit or a regenerated reply has its original's parent: the shown branch moved there
             */
            parent_id?: number | null;
            /**
             * Reply To
             * @description The message this one answers
             */
            reply_to?: number | null;
            role: components["schemas"]["Role"];
            /** Tool Calls */
            tool_calls: {
                [key: string]: unknown;
            }[] | null;
        };
        /** ModelChoice */
        ModelChoice: {
            /**
             * Model
             * @description One of GET /models' names; null: the configured model
             */
            model: string | null;
        };
        /** ModelsOut */
        ModelsOut: {
            /**
             * Default
             * @description The configured model: a conversation's until one is chosen
             */
            default: string;
            /**
             * Models
             * @description What a conversation may choose: the configured model first, then the provider's (its GET /v1/models), and `offline` last
             */
            models: string[];
            /**
             * Notice
             * @description What a person should know about the list, if anything
             */
            notice: string | null;
            /**
             * Provider Reachable
             * @description false when the provider's list could not be read (only the configured and offline models are listed); null when no provider is configured
             */
            provider_reachable: boolean | null;
        };
        /** MuteIn */
        MuteIn: {
            /** Muted */
            muted: boolean;
        };
        /** MuteOut */
        MuteOut: {
            /** Conversation Id */
            conversation_id: number;
            /** Muted */
            muted: boolean;
        };
        /** NextDelegation */
        NextDelegation: {
            delegation: components["schemas"]["DelegationOut"] | null;
        };
        /** OidcLinkRequest */
        OidcLinkRequest: {
            /**
             * Next
             * @description Where to come back
             */
            next?: string | null;
        };
        /** OidcLinkStarted */
        OidcLinkStarted: {
            /**
             * Redirect To
             * @description The identity provider: send the browser there
             */
            redirect_to: string;
        };
        /** PasskeyLogin */
        PasskeyLogin: {
            /** Credential */
            credential: {
                response: {
                    clientDataJSON: string;
                } & {
                    [key: string]: components["schemas"]["StorableJSON"];
                };
            } & {
                [key: string]: components["schemas"]["StorableJSON"];
            };
        };
        /** PasskeyOut */
        PasskeyOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: number;
            /** Last Used At */
            last_used_at: string | null;
            /** Name */
            name: string;
        };
        /** PasskeyVerify */
        PasskeyVerify: {
            /** Credential */
            credential: {
                response: {
                    clientDataJSON: string;
                } & {
                    [key: string]: components["schemas"]["StorableJSON"];
                };
            } & {
                [key: string]: components["schemas"]["StorableJSON"];
            };
            /** Name */
            name?: string | null;
        };
        /** PasswordChange */
        PasswordChange: {
            /** Current Password */
            current_password: string;
            /** New Password */
            new_password: string;
        };
        /**
         * PermissionRequestIn
         * @description One tool call Claude Code is about to make (its PreToolUse hook event's fields).
         */
        PermissionRequestIn: {
            /**
             * Cwd
             * @description The session's working folder
             * @default
             */
            cwd: string;
            /**
             * Home
             * @description The machine's home folder (`~` in rules)
             * @default
             */
            home: string;
            /**
             * Machine
             * @description The machine's name, for machine rules
             * @default
             */
            machine: string;
            /**
             * Session Id
             * @default
             */
            session_id: string;
            /**
             * Tool Input
             * @description The tool's arguments, as Claude Code gives them
             */
            tool_input: {
                [key: string]: components["schemas"]["StorableJSON"];
            };
            /**
             * Tool Name
             * @description `Bash`, `Write`…
             */
            tool_name: string;
            /**
             * Tool Use Id
             * @description Claude Code's id of the call: the same id again is the same request
             */
            tool_use_id: string;
        };
        /** PermissionRequestOut */
        PermissionRequestOut: {
            /** Decided By */
            decided_by: ("rule" | "person" | "timeout" | "closed") | null;
            /** Decision */
            decision: ("allow" | "deny") | null;
            /**
             * Id
             * @description The question asking the person; null if a rule decided
             */
            id: number | null;
            /**
             * Reason
             * @description What Claude Code is told (a denial's reaches the model)
             */
            reason: string;
            /**
             * Rule Id
             * @description The rule that decided, or the ask rule that asked
             */
            rule_id: number | null;
            /**
             * Status
             * @enum {string}
             */
            status: "pending" | "decided";
        };
        /** PinnedIn */
        PinnedIn: {
            /**
             * Pinned
             * @description true: at the top of the list; false: in its usual place
             */
            pinned: boolean;
        };
        /** PostedOut */
        PostedOut: {
            /**
             * Answered
             * @description The question this message answered, if it answered one
             */
            answered?: number | null;
            /**
             * Author
             * @description The agent that wrote it (agents only)
             */
            author: string | null;
            /** Content */
            content: string;
            /** Conversation Id */
            conversation_id: number;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Error */
            error: boolean;
            /** Id */
            id: number;
            /**
             * @description `question` waits for an answer; `status`, `delegation`, `completion`, `escalation`, `output` and `error` are written by agents, threads and work sessions
             * @default message
             */
            kind: components["schemas"]["MessageKind"];
            /** Meta */
            meta: {
                [key: string]: unknown;
            } | null;
            /**
             * Parent Id
             * @description The message it follows on its branch (None: a first message). An edit or a regenerated reply has its original's parent: the shown branch moved there
             */
            parent_id?: number | null;
            /**
             * Reply To
             * @description The message this one answers
             */
            reply_to?: number | null;
            role: components["schemas"]["Role"];
            /** Tool Calls */
            tool_calls: {
                [key: string]: unknown;
            }[] | null;
        };
        /** PreferencesOut */
        PreferencesOut: {
            /**
             * Email Available
             * @description Whether this server can send email at all (a mail server is configured): without one, `email_reminders` sends nothing
             * @default false
             */
            email_available: boolean;
            /**
             * Email Reminders
             * @description Reminder emails for unanswered questions
             */
            email_reminders: boolean;
            /**
             * Message
             * @description Any agent message in the inbox
             */
            message: boolean;
            /** Muted Conversations */
            muted_conversations: number[];
            /**
             * Question
             * @description Questions to the person, permission prompts included
             */
            question: boolean;
            /**
             * Run Failed
             * @description An agent's run that failed
             */
            run_failed: boolean;
        };
        /** PreferencesPatch */
        PreferencesPatch: {
            /** Email Reminders */
            email_reminders?: boolean | null;
            /** Message */
            message?: boolean | null;
            /** Question */
            question?: boolean | null;
            /** Run Failed */
            run_failed?: boolean | null;
        };
        /**
         * PushKeys
         * @description The browser's own object (as `PushSubscriptionIn`): a field a browser adds is not
         *     ours to refuse.
         */
        PushKeys: {
            /**
             * Auth
             * @description The browser's auth secret (16 bytes, base64url)
             */
            auth: string;
            /**
             * P256Dh
             * @description The browser's P-256 public key (65 bytes, base64url)
             */
            p256dh: string;
        };
        /**
         * PushSubscriptionIn
         * @description The browser's `PushSubscription.toJSON()`, plus an optional name for the device.
         */
        PushSubscriptionIn: {
            /** Endpoint */
            endpoint: string;
            /** Expirationtime */
            expirationTime?: number | null;
            keys: components["schemas"]["PushKeys"];
            /**
             * Label
             * @description e.g. 'Phone', 'Work laptop'
             * @default
             */
            label: string;
        };
        /** PushSubscriptionOut */
        PushSubscriptionOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Endpoint */
            endpoint: string;
            /** Id */
            id: number;
            /** Label */
            label: string;
            /** Last Sent At */
            last_sent_at: string | null;
        };
        /**
         * QuestionAnswer
         * @description The person's answer: text for any question, or a decision for a permission request.
         */
        QuestionAnswer: {
            /**
             * Decision
             * @description A permission request's answer: allow this call, allow the tool for the rest of the session, or deny
             */
            decision?: ("allow" | "allow_session" | "deny") | null;
            /**
             * Text
             * @description The answer, in the person's words
             */
            text?: string | null;
        } & ({
            text: string;
        } | {
            decision: string;
        });
        /** QuestionOut */
        QuestionOut: {
            answer: components["schemas"]["MessageOut"] | null;
            /** Asked By */
            asked_by: string | null;
            question: components["schemas"]["MessageOut"];
            /** Run Id */
            run_id: number | null;
            /**
             * Status
             * @enum {string}
             */
            status: "open" | "answered" | "timed_out" | "closed";
            /**
             * Timeout At
             * Format: date-time
             */
            timeout_at: string;
        };
        /** ReadPosition */
        ReadPosition: {
            /** Message Id */
            message_id: number;
        };
        /** RecoveryCodesOut */
        RecoveryCodesOut: {
            /**
             * Recovery Codes
             * @description each works once; shown only now
             */
            recovery_codes: string[];
        };
        /**
         * Role
         * @enum {string}
         */
        Role: "user" | "assistant" | "agent" | "system";
        /** RuleIn */
        RuleIn: {
            /**
             * Decision
             * @enum {string}
             */
            decision: "allow" | "deny" | "ask";
            /**
             * Note
             * @default
             */
            note: string;
            /**
             * On Timeout
             * @description What a question this rule asks decides if nobody answers
             * @default deny
             * @enum {string}
             */
            on_timeout: "allow" | "deny";
            /**
             * Pattern
             * @description Claude Code's rule syntax: `Bash`, `Bash(npm test)`, `Bash(npm test:*)`, `Edit(src/**)`, `Read(//etc/**)`, `WebFetch(domain:example.com)`, `mcp__server`, `mcp__server__tool`
             */
            pattern: string;
            /**
             * Scope
             * @default all
             * @enum {string}
             */
            scope: "all" | "agent" | "machine";
            /**
             * Scope Value
             * @description The agent's name (scope `agent`) or the machine's (scope `machine`); '' for all
             * @default
             */
            scope_value: string;
        };
        /** RuleOut */
        RuleOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Decision
             * @enum {string}
             */
            decision: "allow" | "deny" | "ask";
            /** Id */
            id: number;
            /** Note */
            note: string;
            /**
             * On Timeout
             * @enum {string}
             */
            on_timeout: "allow" | "deny";
            /** Pattern */
            pattern: string;
            /** Question Id */
            question_id: number | null;
            /**
             * Scope
             * @enum {string}
             */
            scope: "all" | "agent" | "machine";
            /** Scope Value */
            scope_value: string;
            /**
             * Source
             * @description Written by the person, or made by 'Always allow this' on `question_id`
             * @enum {string}
             */
            source: "hand" | "always";
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /**
         * RulePatch
         * @description Only the fields given change; the rule as changed must still be whole.
         */
        RulePatch: {
            /** Decision */
            decision?: ("allow" | "deny" | "ask") | null;
            /** Note */
            note?: string | null;
            /** On Timeout */
            on_timeout?: ("allow" | "deny") | null;
            /**
             * Pattern
             * @description Claude Code's rule syntax: `Bash`, `Bash(npm test)`, `Bash(npm test:*)`, `Edit(src/**)`, `Read(//etc/**)`, `WebFetch(domain:example.com)`, `mcp__server`, `mcp__server__tool`
             */
            pattern?: string | null;
            /** Scope */
            scope?: ("all" | "agent" | "machine") | null;
            /** Scope Value */
            scope_value?: string | null;
        };
        /** RunCreate */
        RunCreate: {
            /** Parent Run Id */
            parent_run_id?: number | null;
            /** Title */
            title?: string | null;
        };
        /** RunFinish */
        RunFinish: {
            /**
             * Status
             * @enum {string}
             */
            status: "completed" | "failed" | "cancelled";
            /**
             * Summary
             * @description How it ended ("" or null: none)
             */
            summary?: string | null;
        };
        /**
         * RunKind
         * @enum {string}
         */
        RunKind: "external" | "work";
        /** RunOut */
        RunOut: {
            /** Agent */
            agent: string;
            /** Conversation Id */
            conversation_id: number | null;
            /** Ended At */
            ended_at: string | null;
            /** Error */
            error: string | null;
            /** Id */
            id: number;
            kind: components["schemas"]["RunKind"];
            /**
             * Last Activity At
             * Format: date-time
             */
            last_activity_at: string;
            /** Latest Status */
            latest_status: string | null;
            /** Parent Run Id */
            parent_run_id: number | null;
            /** Progress */
            progress: number | null;
            /**
             * Started At
             * Format: date-time
             */
            started_at: string;
            status: components["schemas"]["RunStatus"];
            /** Summary */
            summary: string | null;
            /** Title */
            title: string | null;
        };
        /**
         * RunStatus
         * @enum {string}
         */
        RunStatus: "running" | "waiting_input" | "completed" | "failed" | "cancelled" | "timed_out";
        /** RunStatusIn */
        RunStatusIn: {
            /** Progress */
            progress?: number | null;
            /** Text */
            text: string;
        };
        /** SearchHit */
        SearchHit: {
            /**
             * Id
             * @description The conversation's id
             */
            id: number;
            /** @description The conversation's best-matching message; null when only its title matched */
            message: components["schemas"]["SearchMessageHit"] | null;
            mode: components["schemas"]["ConversationMode"];
            /**
             * Similar
             * @description Found by words like the ones typed (a typo's), none of which it holds
             */
            similar: boolean;
            /** Title */
            title: string;
            /**
             * Title Marks
             * @description Where the text is in `title`
             */
            title_marks: components["schemas"]["SearchMark"][];
        };
        /**
         * SearchMark
         * @description A found word's place in a text: code points `[start, end)`, for the UI to mark.
         */
        SearchMark: {
            /** End */
            end: number;
            /** Start */
            start: number;
        };
        /** SearchMessageHit */
        SearchMessageHit: {
            /** Author */
            author: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: number;
            /**
             * Marks
             * @description Where the words found are in `snippet`
             */
            marks: components["schemas"]["SearchMark"][];
            role: components["schemas"]["Role"];
            /**
             * Snippet
             * @description The passage around the words found, as plain text
             */
            snippet: string;
        };
        /** SearchOut */
        SearchOut: {
            /**
             * Conversations
             * @description One row per conversation, the best match first
             */
            conversations: components["schemas"]["SearchHit"][];
        };
        /** SecondFactorCode */
        SecondFactorCode: {
            /**
             * Code
             * @description the 6 digits the app shows now
             */
            code: string;
        };
        /** SecondFactorLogin */
        SecondFactorLogin: {
            /**
             * Challenge
             * @description from the 401 second_factor_required
             */
            challenge: string;
            /**
             * Code
             * @description the app's 6 digits, or a recovery code
             */
            code: string;
        };
        /** SecondFactorSetupOut */
        SecondFactorSetupOut: {
            /**
             * Otpauth Uri
             * @description otpauth://totp/... for a QR code
             */
            otpauth_uri: string;
            /**
             * Secret
             * @description base32, to type into the app; shown only now
             */
            secret: string;
        };
        /** SecondFactorStatusOut */
        SecondFactorStatusOut: {
            /** Enabled */
            enabled: boolean;
            /**
             * Pending
             * @description set up but not confirmed with a code yet
             */
            pending: boolean;
            /** Recovery Codes Left */
            recovery_codes_left: number;
        };
        /** SessionOut */
        SessionOut: {
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Current */
            current: boolean;
            /** Device */
            device: string;
            /** Id */
            id: number;
            /**
             * Last Seen At
             * Format: date-time
             */
            last_seen_at: string;
        };
        /** SignupRequest */
        SignupRequest: {
            /** Email */
            email?: string | null;
            /** Invite */
            invite?: string | null;
            /** Password */
            password: string;
            /** User Id */
            user_id: string;
        };
        /** StopResponse */
        StopResponse: {
            /**
             * Stopped
             * @description Whether a reply was running (it has ended)
             */
            stopped: boolean;
        };
        /** @description Any JSON value whose strings (object keys too) hold no NUL */
        StorableJSON: (null | boolean | number) | string | {
            [key: string]: components["schemas"]["StorableJSON"];
        } | ((null | boolean | number) | string | {
            [key: string]: components["schemas"]["StorableJSON"];
        })[];
        /**
         * TaskCreate
         * @description A new task: the fields a person writes, as written.
         */
        TaskCreate: {
            /**
             * Description
             * @description Blank or empty clears it
             */
            description?: string | null;
            /**
             * Title
             * @description 1-500 characters after trimming (inner whitespace collapsed)
             */
            title: string;
        };
        /** TaskOut */
        TaskOut: {
            /** Completed */
            completed: boolean;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Description
             * @description Blank or empty clears it
             */
            description?: string | null;
            /**
             * Number
             * @description The task's number for its owner: 1, 2, 3... per user
             */
            number: number;
            /**
             * Title
             * @description 1-500 characters after trimming (inner whitespace collapsed)
             */
            title: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /**
         * TaskPatch
         * @description Any of the fields, each optional: only those given change, and one must be given.
         */
        TaskPatch: {
            /** Completed */
            completed?: boolean | null;
            /**
             * Description
             * @description Blank or empty clears it
             */
            description?: string | null;
            /** Title */
            title?: string | null;
        } | {
            title: string;
        } | {
            description: string;
        } | {
            completed: boolean;
        };
        /**
         * ThreadClose
         * @description Cancelling a thread: why, if the canceller says.
         */
        ThreadClose: {
            /**
             * Text
             * @description The reason ("" or null: none given)
             */
            text?: string | null;
        };
        /**
         * ThreadResult
         * @description Completing, failing or escalating a thread: what came of it, which must be said.
         */
        ThreadResult: {
            /**
             * Text
             * @description The result, the error or the reason
             */
            text: string;
        };
        /** TokenCounts */
        TokenCounts: {
            /**
             * Cache Creation Input Tokens
             * @default 0
             */
            cache_creation_input_tokens: number;
            /**
             * Cache Read Input Tokens
             * @default 0
             */
            cache_read_input_tokens: number;
            /**
             * Input Tokens
             * @default 0
             */
            input_tokens: number;
            /**
             * Output Tokens
             * @default 0
             */
            output_tokens: number;
            /**
             * Requests
             * @default 0
             */
            requests: number;
        };
        /** ToolCallRecord */
        ToolCallRecord: {
            /** Parameters */
            parameters: {
                [key: string]: unknown;
            };
            /** Result */
            result: unknown;
            /** Tool */
            tool: string;
        };
        /** UnreadOut */
        UnreadOut: {
            /** Conversation Id */
            conversation_id: number;
            /** Unread */
            unread: number;
        };
        /** ValidationError */
        ValidationError: {
            /** Context */
            ctx?: Record<string, never>;
            /** Input */
            input?: unknown;
            /** Location */
            loc: (string | number)[];
            /** Message */
            msg: string;
            /** Error Type */
            type: string;
        };
        /** VapidKeyOut */
        VapidKeyOut: {
            /**
             * Public Key
             * @description applicationServerKey for pushManager.subscribe
             */
            public_key: string;
        };
        /** WorkEndResponse */
        WorkEndResponse: {
            /** Ended */
            ended: boolean;
        };
        /** WorkHealth */
        WorkHealth: {
            /** Available */
            available: boolean;
            /** Reason */
            reason: string | null;
        };
        /**
         * WorkState
         * @description A work conversation's Claude Code session, as the person sees it.
         */
        WorkState: {
            /** Cost Usd */
            cost_usd: number;
            /** Pending Question Id */
            pending_question_id?: number | null;
            /** Run Id */
            run_id: number | null;
            /**
             * Status
             * @enum {string}
             */
            status: "starting" | "working" | "waiting_permission" | "idle" | "ended";
            /** Workspace */
            workspace?: string | null;
        };
        /**
         * WorkUsageResponse
         * @description What the person's work sessions used of the model, per conversation and in all.
         */
        WorkUsageResponse: {
            /** Conversations */
            conversations: components["schemas"]["ConversationUsage"][];
            total: components["schemas"]["TokenCounts"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    list_agent_keys_api__user_id__agent_keys_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentKeyOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    create_agent_key_api__user_id__agent_keys_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentKeyCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentKeyCreated"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    revoke_agent_key_api__user_id__agent_keys__key_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                key_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_rules_api__user_id__approval_rules_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuleOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    add_rule_api__user_id__approval_rules_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuleIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuleOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    remove_rule_api__user_id__approval_rules__rule_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    change_rule_api__user_id__approval_rules__rule_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rule_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RulePatch"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RuleOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    always_allow_api__user_id__approval_rules_from_question__question_id__post: {
        parameters: {
            query?: never;
            header?: {
                /** @description The push subscription whose notification answered (audit) */
                "x-parley-device"?: number | null;
                /** @description The web UI answering a question an emailed link opened (audit) */
                "x-parley-via"?: "email_link" | null;
            };
            path: {
                question_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlwaysOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    limits_api__user_id__attachment_limits_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachmentLimits"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    upload_api__user_id__attachments_post: {
        parameters: {
            query: {
                /** @description The file's name */
                name: string;
            };
            header?: {
                "content-type"?: string | null;
            };
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        /** @description The file's bytes, at most PARLEY_MAX_ATTACHMENT_BYTES */
        requestBody: {
            content: {
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttachmentOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    download_api__user_id__attachments__attachment_id__get: {
        parameters: {
            query?: {
                /** @description Always as a download, an image too */
                download?: boolean;
            };
            header?: never;
            path: {
                attachment_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes, typed as they were found to be */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/gif": unknown;
                    "image/jpeg": unknown;
                    "image/png": unknown;
                    "image/webp": unknown;
                    "text/plain": unknown;
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    read_trail_api__user_id__audit_get: {
        parameters: {
            query?: {
                /** @description Only this agent's */
                agent?: string | null;
                /** @description A page's `next_cursor`: the events before it */
                cursor?: number | null;
                /** @description Only this decision */
                decision?: ("allow" | "allow_session" | "deny" | "answer" | "timed_out" | "withdrawn") | null;
                limit?: number;
                /** @description Only decisions at or after this time (ISO 8601, with zone) */
                since?: string | null;
            };
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditPage"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    export_trail_api__user_id__audit_jsonl_get: {
        parameters: {
            query?: {
                /** @description Only this agent's */
                agent?: string | null;
                /** @description Only this decision */
                decision?: ("allow" | "allow_session" | "deny" | "answer" | "timed_out" | "withdrawn") | null;
                /** @description Only decisions at or after this time (ISO 8601, with zone) */
                since?: string | null;
            };
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One AuditEventOut JSON object a line, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/jsonl": string;
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    chat_api__user_id__chat_post: {
        parameters: {
            query?: never;
            header?: {
                accept?: string | null;
            };
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatResponse"];
                    "text/event-stream": string;
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The model or a tool failed; the error is stored in the conversation */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_connected_apps_api__user_id__connected_apps_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectedAppOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    revoke_connected_app_api__user_id__connected_apps__app_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                app_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_conversations_api__user_id__conversations_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    create_conversation_api__user_id__conversations_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_conversation_api__user_id__conversations__conversation_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delete_conversation_api__user_id__conversations__conversation_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rename_conversation_api__user_id__conversations__conversation_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConversationPatch"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    set_archived_api__user_id__conversations__conversation_id__archived_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ArchivedIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    show_branch_api__user_id__conversations__conversation_id__branch_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BranchRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BranchesOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_branches_api__user_id__conversations__conversation_id__branches_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BranchesOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    events_api__user_id__conversations__conversation_id__events_get: {
        parameters: {
            query?: {
                /** @description Replay stored messages after this id */
                after?: number | null;
            };
            header?: {
                /** @description Resume after this event id (what the last event's `id:` said) */
                "last-event-id"?: string | null;
            };
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                    "text/event-stream": string;
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    export_api__user_id__conversations__conversation_id__export_get: {
        parameters: {
            query?: {
                /** @description markdown or json */
                format?: string;
            };
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                    "text/markdown": unknown;
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_messages_api__user_id__conversations__conversation_id__messages_get: {
        parameters: {
            query?: {
                /** @description Only messages with a larger id */
                after?: number | null;
                limit?: number;
            };
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    post_to_conversation_api__user_id__conversations__conversation_id__messages_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostedOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    choose_model_api__user_id__conversations__conversation_id__model_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ModelChoice"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    set_mute_api__user_id__conversations__conversation_id__mute_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MuteIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MuteOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    set_pinned_api__user_id__conversations__conversation_id__pinned_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PinnedIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    mark_read_api__user_id__conversations__conversation_id__read_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReadPosition"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnreadOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    stop_api__user_id__conversations__conversation_id__stop_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StopResponse"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_work_api__user_id__conversations__conversation_id__work_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkState"] | null;
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    end_api__user_id__conversations__conversation_id__work_end_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                conversation_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkEndResponse"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_thread_api__user_id__delegations__thread_id__get: {
        parameters: {
            query?: {
                /** @description Seconds to wait */
                wait?: number;
            };
            header?: never;
            path: {
                thread_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    acknowledge_api__user_id__delegations__thread_id__ack_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    cancel_thread_api__user_id__delegations__thread_id__cancel_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThreadClose"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    complete_thread_api__user_id__delegations__thread_id__complete_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThreadResult"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    escalate_thread_api__user_id__delegations__thread_id__escalate_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThreadResult"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    fail_thread_api__user_id__delegations__thread_id__fail_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                thread_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ThreadResult"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    read_thread_api__user_id__delegations__thread_id__messages_get: {
        parameters: {
            query?: {
                after?: number;
                /** @description Seconds to wait */
                wait?: number;
            };
            header?: never;
            path: {
                thread_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    next_delegation_api__user_id__delegations_next_get: {
        parameters: {
            query?: {
                /** @description Your process's own key: a claim whose answer you lost comes back */
                claimer?: string | null;
                /** @description Seconds to wait */
                wait?: number;
            };
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NextDelegation"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    person_stream_api__user_id__events_get: {
        parameters: {
            query?: {
                /** @description Replay events after this id */
                after?: number | null;
            };
            header?: {
                /** @description Resume after this event id (what the last event's `id:` said) */
                "last-event-id"?: string | null;
            };
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                    "text/event-stream": string;
                };
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_inbox_api__user_id__inbox_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConversationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    post_to_inbox_api__user_id__inbox_messages_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostedOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_instructions_api__user_id__instructions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InstructionsOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    set_instructions_api__user_id__instructions_put: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InstructionsIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InstructionsOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_models_api__user_id__models_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelsOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_preferences_api__user_id__notification_preferences_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreferencesOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    patch_preferences_api__user_id__notification_preferences_patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PreferencesPatch"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreferencesOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_passkeys_api__user_id__passkeys_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delete_passkey_api__user_id__passkeys__passkey_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                passkey_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    request_permission_api__user_id__permission_requests_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PermissionRequestIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionRequestOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_permission_request_api__user_id__permission_requests__request_id__get: {
        parameters: {
            query?: {
                /** @description Seconds to wait for the decision */
                wait?: number;
            };
            header?: never;
            path: {
                request_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionRequestOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    withdraw_permission_request_api__user_id__permission_requests__request_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PermissionRequestOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_subscriptions_api__user_id__push_subscriptions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushSubscriptionOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    add_subscription_api__user_id__push_subscriptions_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PushSubscriptionIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PushSubscriptionOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    remove_subscription_api__user_id__push_subscriptions__subscription_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_open_questions_api__user_id__questions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuestionOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_question_api__user_id__questions__question_id__get: {
        parameters: {
            query?: {
                /** @description Seconds to wait for an answer */
                wait?: number;
            };
            header?: never;
            path: {
                question_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuestionOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    answer_question_api__user_id__questions__question_id__answer_post: {
        parameters: {
            query?: never;
            header?: {
                /** @description The push subscription whose notification answered (audit) */
                "x-parley-device"?: number | null;
                /** @description The web UI answering a question an emailed link opened (audit) */
                "x-parley-via"?: "email_link" | null;
            };
            path: {
                question_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuestionAnswer"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostedOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_runs_api__user_id__runs_get: {
        parameters: {
            query?: {
                status?: ("running" | "waiting_input" | "completed" | "failed" | "cancelled" | "timed_out") | null;
            };
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    start_run_api__user_id__runs_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_run_api__user_id__runs__run_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delegate_api__user_id__runs__run_id__delegations_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DelegationCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DelegationOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    finish_run_api__user_id__runs__run_id__finish_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunFinish"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    read_run_api__user_id__runs__run_id__messages_get: {
        parameters: {
            query?: {
                after?: number;
                limit?: number;
                /** @description Seconds to wait for something new */
                wait?: number;
            };
            header?: never;
            path: {
                run_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    post_to_run_api__user_id__runs__run_id__messages_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MessageCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PostedOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    report_status_api__user_id__runs__run_id__status_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                run_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RunStatusIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Message too long */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    search_api__user_id__search_get: {
        parameters: {
            query: {
                limit?: number;
                /** @description Words to find (not blank) */
                q: string;
            };
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_sessions_api__user_id__sessions_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    end_other_sessions_api__user_id__sessions_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    end_session_api__user_id__sessions__session_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    list_tasks_api__user_id__tasks_get: {
        parameters: {
            query?: {
                status?: "all" | "pending" | "completed";
            };
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskOut"][];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    add_task_api__user_id__tasks_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    delete_task_api__user_id__tasks__number__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                number: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    update_task_api__user_id__tasks__number__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                number: number;
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TaskPatch"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    get_usage_api__user_id__work_usage_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkUsageResponse"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    end_all_sessions_api_admin_all_sessions_delete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    create_invite_api_admin_invites_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InviteCreate"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InviteOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    disable_user_api_admin_users__user_id__disable_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    enable_user_api_admin_users__user_id__enable_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    end_user_sessions_api_admin_users__user_id__sessions_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    auth_config_api_auth_config_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthConfig"];
                };
            };
        };
    };
    dev_login_api_auth_dev_login_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DevLoginRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DevLoginOut"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    change_email_api_auth_email_put: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmailChange"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailState"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    send_verification_api_auth_email_verification_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailState"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The model or a tool failed; the error is stored in the conversation */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    verify_email_api_auth_email_verify_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmailVerify"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailState"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    invite_info_api_auth_invites__token__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InviteInfo"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    login_api_auth_login_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoginRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    login_second_factor_api_auth_login_second_factor_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SecondFactorLogin"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    logout_api_auth_logout_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    me_api_auth_me_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MeOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    oidc_callback_api_auth_oidc_callback_get: {
        parameters: {
            query?: {
                code?: string | null;
                error?: string | null;
                state?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To `next`, or `/?auth_error=<code>` */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    oidc_link_api_auth_oidc_link_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OidcLinkRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OidcLinkStarted"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    oidc_login_api_auth_oidc_login_get: {
        parameters: {
            query?: {
                invite?: string | null;
                next?: string | null;
                reauth?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the identity provider */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    login_options_api_auth_passkeys_login_options_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    login_verify_api_auth_passkeys_login_verify_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasskeyLogin"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    register_options_api_auth_passkeys_register_options_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    register_verify_api_auth_passkeys_register_verify_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasskeyVerify"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    change_password_api_auth_password_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasswordChange"];
            };
        };
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    status_api_auth_second_factor_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecondFactorStatusOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    begin_api_auth_second_factor_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecondFactorSetupOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    disable_api_auth_second_factor_delete: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    confirm_api_auth_second_factor_confirm_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SecondFactorCode"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecoveryCodesOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    signup_api_auth_signup_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignupRequest"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountOut"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Conflicts with the current state (a turn in progress, a finished run) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    decide_api_device_decision_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeviceDecisionIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeviceDecisionOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookup_api_device_lookup_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeviceCodeIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeviceRequestOut"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    health_api_health_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthResponse"];
                };
            };
        };
    };
    show_request_api_oauth_requests__request__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsentRequest"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    decide_request_api_oauth_requests__request__post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["ConsentDecision"];
            };
        };
        responses: {
            /** @description To the client: its redirect URI with code, state and iss, or with error=access_denied */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad request */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Missing, invalid or expired bearer token */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The path's user is not the token's user */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database connection was lost (a restart, say); try again */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    vapid_public_key_api_push_vapid_public_key_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VapidKeyOut"];
                };
            };
        };
    };
    open_question_link_api_question_links__token__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            303: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Not found (or not yours) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
}
