# Telegram bot texts, English. Every key here must also exist in ru.ftl (test/bot/locales.test.ts checks it).

## Start, menu, help

start-welcome-new =
    👋 Welcome, { $name }!

    Your account is ready on the { $plan } plan with a one-time gift of { $balance } { $balance ->
        [one] token
       *[other] tokens
    }.
    Chat with text models, create images, videos, speech and music, transcribe voice messages and edit photos — all from this chat.

    Choose what to do:
start-welcome-back =
    👋 Welcome back, { $name }!
    Plan: { $plan } · balance: { $balance } { $balance ->
        [one] token
       *[other] tokens
    }.

    Choose what to do:
menu-title = What would you like to do?
menu-chat = 💬 Chat
menu-image = 🖼 Image
menu-video = 🎬 Video
menu-tts = 🗣 Speech
menu-stt = 🎙 Transcribe
menu-music = 🎵 Music
menu-tools = 🛠 Photo tools
menu-balance = 💰 Balance & plans
menu-settings = ⚙️ Settings
menu-stats = 📊 Stats
menu-history = 🗂 History
menu-help = ❓ Help
menu-button-app = Open app
help-text =
    ❓ How it works

    💬 Just write a message to chat with the selected text model; it remembers the conversation. /new starts over, /chat picks the model, /mode picks a persona. 🔄 under an answer asks the same question again (billed again).
    👁 Send a photo with a question in the caption (or reply to a photo with a question) and a model that sees images answers; reply to any photo with what to change (“make the sky purple”) and it is edited.
    🎨 Under every image: 🔄 Again, 🎲 Variations, 🔍 Upscale, ✏️ Edit.
    ⚡ /image a red fox, /video waves at sunset, /music calm piano, /speak Hello!: one step, with the model and options you used last; only the price is confirmed (in /settings: never ask below a price you choose).
    🖼 /image, 🎬 /video, 🗣 /speech, 🎵 /music alone: pick a model and options, write the prompt, see the price, confirm.
    🎙 Send a voice message or an audio file to get it transcribed; in /settings, voice messages can be answered by the chat model instead.
    🛠 Send a photo with a caption: “upscale”, “upscale 4x”, “remove bg”, “colorize”, “ocr”, “style: watercolor”, “inpaint: a red hat”, “face swap” — or without a caption to pick a tool.

    Every request costs tokens; the price is shown before you confirm, and a failed request costs nothing.
    /balance shows your tokens and plans, /settings changes language, image format and notifications, /history lists your results, /cancel stops a wizard.
cancel-nothing = Nothing to cancel.
unhandled-message = I did not understand that. Choose something from the menu:
button-expired = This button has expired. Open /menu again.
account-blocked = This account is blocked. Contact support if you think this is a mistake.

## Commands (shown in Telegram's command menu)

command-start = Start and main menu
command-menu = Main menu
command-chat = Chat model and context
command-new = Start a new conversation
command-mode = Choose a persona
command-image = Create an image
command-video = Create a video
command-speech = Text to speech
command-speak = Speak a text at once: /speak <text>
command-transcribe = Transcription model
command-music = Create music
command-tools = Photo tools
command-balance = Balance and plans
command-settings = Settings
command-stats = Your statistics
command-history = Your results
command-help = Help
command-buy = Buy tokens or a plan with Stars
command-paysupport = Help with payments
command-cancel = Cancel the current step
command-stop = Stop the answer being written
command-off = Switch the bot off in this group (admins)
command-on = Switch the bot on in this group (admins)

## Buttons

button-menu = ☰ Menu
button-back = ‹ Back
button-cancel = ✖ Cancel
button-skip = Skip ›
button-skip-transparent = Skip: repaint the transparent area ›
button-generate = ✅ Generate · { $price } tkn
button-options = ⚙️ Options
button-confirm-always = Always ask
button-confirm-above = ≤ { $price }: go
button-top-up = 💳 Top up
button-plans = ⭐ Plans
button-new-chat = 🆕 New conversation
button-older = Older ›
button-newest = ‹ Newest
button-resend = 📎 #{ $id } { $label }
button-retry = 🔄 Ask again · ≈{ $price } tkn
button-stop = ⏹ Stop
button-again = 🔄 Again
button-variations = 🎲 Variations
button-upscale = 🔍 Upscale
button-edit = ✏️ Edit
button-persona = 🎭 Persona
button-persona-none = 🚫 No persona
button-voice-transcribe = 📝 Transcribe voice
button-voice-answer = 💬 Answer voice
button-voice-answers-off = 🔇 Voice answers off
button-voice-answers-on = 🔊 Voice answers on
button-voice-answers-model = 🗣 Voice: { $model }
button-buy-plan = { $name } · { $stars } ⭐ / 30 days
button-buy-tokens = { $tokens } { $tokens ->
        [one] token
       *[other] tokens
    } · { $stars } ⭐
button-notifications-on = 🔔 Turn notifications on
button-notifications-off = 🔕 Turn notifications off

## Models

model-button = { $mark }{ $name } · { $price } tkn
model-button-locked = 🔒 { $name } · { $plan }
model-locked = { $model } is available from the { $plan } plan. Upgrade in Balance & plans to use it.
price-tokens = { $price } tkn
seconds = { $n } s

## Chat

chat-intro =
    💬 Chat

    Model: { $model }
    Persona: { $persona }
    Messages in context: { $messages }

    Just write a message, or send a photo with a question. Pick another model below; 🔒 models need a higher plan.
chat-model-set = Chat model: { $model }
chat-reset = 🆕 New conversation started: the previous context is forgotten.
chat-thinking = ✍️ …
chat-empty-reply = (the model returned an empty answer)
chat-stopped = ⏹ Stopped: the answer ends here, and only what was written is billed.
chat-stopped-before = ⏹ Stopped before the model began. Nothing was charged.
stop-done = ⏹ Stopped.
stop-requested = ⏹ Stop requested.
stop-nothing = Nothing is being written right now.
edit-ask = ✏️ What should change? Write it in one message, e.g. “make the sky purple”.
follow-up-gone = This result is no longer available.
follow-up-variation-prompt = A variation of this image
document-joined = 📄 { $name }{ $pages ->
        [0] {""}
       *[other] {" "}({ $pages } { $pages ->
            [one] page
           *[other] pages
        })
    } joined the conversation. Every question now carries { $count ->
        [one] it
       *[other] the { $count } documents
    } as input (about { $tokens } tokens), until /new. Ask away.
document-no-text = 📄 { $name } has no text layer (a scan), and { $model } does not read PDFs itself. Pick a model that does in /chat and send it again. Nothing was charged.
document-conversation-full = 📄 This conversation already holds as much document text as it can (up to { $max } characters). /new starts over without the documents. Nothing was charged.
chat-footer = — { $model } · { $tokens } tkn · balance { $balance }
chat-retry-started = 🔄 Asking again: this is billed again, about { $price } tkn.
chat-retry-expired = Only the latest answer can be asked again.

## Personas

persona-intro =
    🎭 Personas

    Now: { $persona }

    A persona gives the chat its instructions and its model. Choosing one starts a new conversation.
persona-line = 🎭 { $name } — { $description }
persona-line-own = 👤 { $name } — { $description }
persona-own-hint = Create your own assistants (instructions and model) on the Assistants page of the dashboard: they appear here too.
button-open-assistants = 🧩 Your assistants
persona-none = none
persona-set = 🎭 Persona: { $name }, model: { $model }. A new conversation has started.
persona-set-model-kept = 🎭 Persona: { $name }. Its model, { $wanted }, is not available to you, so { $model } answers. A new conversation has started.
persona-off = Persona off: the chat model answers without instructions. A new conversation has started.
persona-not-found = This persona is no longer available.

## Media wizards

media-pick-image = 🖼 Choose an image model:
media-pick-video = 🎬 Choose a video model:
media-pick-tts = 🗣 Choose a speech model:
media-pick-music = 🎵 Choose a music model:
media-ask-size = Choose the size:
media-ask-quality = Choose the quality:
media-ask-aspect = Choose the aspect ratio:
media-ask-duration = Choose the length:
media-ask-music-duration = How long should the track be?
media-ask-voice = Choose a voice:
media-ask-photo-required = Send the photo to animate.
media-ask-photo-optional = Send a photo to start from, or skip.
media-ask-prompt-image = ✏️ Describe the image you want.
media-ask-prompt-video = ✏️ Describe the video you want.
media-ask-text-tts = ✏️ Send the text to read aloud.
media-ask-prompt-music = ✏️ Describe the music: genre, mood, instruments.
media-confirm-prompt = Prompt: { $prompt }
media-confirm-price = Price: { $price } tkn (balance { $balance })
quality-standard = Standard
quality-hd = HD
voice-default = default
detail-size = Size: { $size }
detail-quality-hd = Quality: HD
detail-aspect = Aspect ratio: { $size }
detail-duration = Length: { $seconds } s
detail-voice = Voice: { $voice }
detail-with-photo = With your photo
detail-with-mask = With your mask
detail-transparent-area = Repaints the transparent area
detail-scale = Scale: { $scale }×
wizard-cancelled = Cancelled.
wizard-use-buttons = Please use the buttons above, or /cancel.
wizard-stale-button = This button belongs to an earlier step.

## Tools

tools-pick = 🛠 Choose a photo tool:
tools-pick-for-photo = 🛠 What should I do with this photo?
tools-selected = 🛠 { $tool }
tools-ask-photo = Send the photo.
tools-ask-face-source = Send the photo with the face to use.
tools-ask-face-target = Now send the photo to put that face on.
tools-ask-mask = Send a mask (white = area to repaint, same proportions as the image), or skip to repaint the image's transparent area.
tools-ask-mask-required = Send a mask: white marks the area to repaint, black what stays (same proportions as the image). This image has no transparent area, so it needs one; or start again with the image sent as a PNG file whose area to repaint is transparent.
tools-ask-scale = How much larger?
tools-ask-prompt-style = ✏️ Describe the style, e.g. “watercolor”, “pencil sketch”.
tools-ask-prompt-inpaint = ✏️ Describe what to paint into the area.
tools-photo-replaced = 🖼 Replaced by your new photo.

## Speech to text

stt-intro =
    🎙 Transcription

    Send a voice message, an audio file or a video note and I will write it down.
    Model: { $model }
stt-model-set = Transcription model: { $model }
voice-transcript =
    🎙 { $text }
    — { $model } · { $tokens } tkn
voice-pending = 🎙 The transcription is taking longer than usual; it will appear in /history.
voice-empty = 🎙 I could not make out any words in this message.

## Progress and results

progress-started = ⏳ { $model } is working on it… about { $eta } s.
progress-running = ⏳ { $model }: { $elapsed } s so far, about { $left } s left.
progress-late = ⏳ { $model }: { $elapsed } s so far — taking longer than usual, the result will arrive here.
result-caption = { $model } · { $tokens } tkn · balance { $balance }
result-sandbox = ⚠️ Sandbox result: this server runs without provider keys.
result-link = Original: { $url }
result-gone = The result file is no longer stored (retention period of your plan).
result-too-large = The result is larger than Telegram allows bots to send.
result-too-large-link = The result is larger than Telegram allows bots to send; download it here: { $url }
result-empty-text = (no text recognised)

## Failures (nothing is charged)

failure-overloaded = ⚠️ { $model } is overloaded right now. Nothing was charged — try again in a minute or pick another model.
failure-timeout = ⚠️ { $model } did not finish in time. Nothing was charged — please try again.
failure-content-policy = ⚠️ The provider refused this request under its content policy. Nothing was charged — please rephrase it.
failure-bad-request = ⚠️ { $model } could not process this request. Nothing was charged.
failure-upstream = ⚠️ { $model } failed to produce a result. Nothing was charged — please try again.

## Errors

error-insufficient-tokens = 💳 Not enough tokens: this needs { $required } tkn, your balance is { $available }. Top up or choose a plan to continue.
error-rate-limit-exceeded = { $window ->
    [day] ⏱ You reached the { $plan } plan limit of { $limit } requests per day. It resets in { $minutes } min (at { $time }). Higher plans allow more.
   *[hour] ⏱ You reached the { $plan } plan limit of { $limit } requests per hour. It resets in { $minutes } min (at { $time }). Higher plans allow more.
}
error-insufficient-plan = 🔒 This needs the { $plan } plan or higher. See the plans to upgrade.
error-model-unavailable = ⚠️ { $model } is overloaded right now. Please wait about { $seconds } s or choose another model. Nothing was charged.
error-generation-failed = { $reason ->
    [overloaded] { failure-overloaded }
    [rate_limited] { failure-overloaded }
    [timeout] { failure-timeout }
    [content_policy] { failure-content-policy }
    [bad_request] { failure-bad-request }
   *[other] { failure-upstream }
}
error-model-overloaded = { failure-overloaded }
error-model-rate-limited = { failure-overloaded }
error-provider-quota-exhausted = { failure-upstream }
error-upstream-timeout = { failure-timeout }
error-content-policy-violation = { failure-content-policy }
error-upstream-bad-request = { failure-bad-request }
error-upstream-auth = { failure-upstream }
error-upstream-error = { failure-upstream }
error-validation-error = { $reason ->
    [prompt_too_long] The text is too long: at most 4000 characters.
    [prompt_required] Please write a prompt.
   *[other] This option is not accepted ({ $field }). Please try again.
}
error-invalid-size = This size is not available for the model. Please choose another.
error-model-not-found = Unknown model: { $model }.
error-model-retired = { $model } has been retired by its vendor. Please choose another model.
error-invalid-input = I could not use this file: send a JPEG, PNG or WebP image (or a supported audio format).
error-unsafe-url = { error-invalid-input }
error-fetch-failed = { error-invalid-input }
error-image-rejected = { error-invalid-input }
error-file-too-large = The file is too large: bots can download files of up to 20 MB.
error-document-too-large = { $limit ->
    [bytes] 📄 The document is too large: I read files of up to { $max } MB. Nothing was charged.
    [pages] 📄 The document has too many pages: I read PDFs of up to { $max } pages. Nothing was charged.
   *[characters] 📄 The document holds too much text: up to { $max } characters in one conversation. Nothing was charged.
}
error-document-unreadable = { $reason ->
    [type] 📄 I read PDF, text, Markdown, code and CSV files; this kind of file I cannot read. Nothing was charged.
    [encrypted] 📄 This PDF is protected by a password: send it without one. Nothing was charged.
    [binary] 📄 This file is not text I can read (UTF-8). Nothing was charged.
    [empty] 📄 This document is empty. Nothing was charged.
   *[damaged] 📄 This document cannot be opened: it seems damaged. Nothing was charged.
}
error-file-unavailable = I could not download this file from Telegram. Please send it again.
error-account-blocked = ⛔️ This account is blocked. Please contact support.
error-quota-exceeded = You have reached the limit of { $limit } for this.
error-not-found = Not found: it may have been deleted.
error-admin-required = This is for the service's administrators only.
error-cannot-block-self = You cannot block your own account.
error-broadcast-finished = This broadcast has finished or was canceled already.
error-key-restricted = This API key has limits: it may generate and read, but not manage the account.
error-internal = Something went wrong on our side. Nothing was charged; please try again.

## Balance, plans, payments

balance-text =
    💰 Balance: { $total } tkn
      plan tokens: { $planTokens }
      bonus tokens: { $bonus } (never expire)
balance-plan = Plan: { $plan }
balance-plan-until = Plan: { $plan }, until { $date }
balance-refill = Next refill: { $date } ({ $tokens } plan tokens)
balance-no-refill = The { $plan } plan has no monthly refill: top up or choose a plan for more tokens.
balance-limits = Limits: { $hourly } requests/hour, { $daily }/day
balance-no-limits = Limits: none
plans-title = ⭐ Plans
plan-line =
    { $mark }{ $name } — ⭐ { $stars } / 30 days
      { $tokens } { $tokens ->
          [one] token
         *[other] tokens
      } a month, { $hourly } requests/hour, { $daily }/day, all models
plan-line-unsold =
    { $mark }{ $name }
      { $tokens } { $tokens ->
          [one] token
         *[other] tokens
      } a month, { $hourly } requests/hour, { $daily }/day, all models
plan-line-starter =
    { $mark }{ $name } — free
      one-time 50 tokens, { $hourly } requests/hour, { $daily }/day, Starter models
unlimited = unlimited
topup-title = ⭐ Pay with Telegram Stars. Token packages (bonus tokens never expire) and plans (30 days, renewed every month until you cancel):
article-plan = { $name } plan, { $days } days
article-tokens = { $tokens } { $tokens ->
        [one] token
       *[other] tokens
    }
payment-unknown-article = This offer is no longer available.
payment-invoice-description-tokens = { $tokens } bonus tokens for Nebula; bonus tokens never expire.
payment-invoice-description-plan = The { $name } plan for 30 days, renewed every 30 days until you cancel.
payment-plan-link = 🧾 { $title }: { $stars } ⭐ every 30 days. Tap the button to subscribe; you can cancel any time under Balance.
button-pay-stars = Pay { $stars } ⭐
precheckout-unknown-order = This order is not valid. Open /buy and start again.
precheckout-not-pending = This order was already paid or has expired. Open /buy for a new one.
precheckout-wrong-amount = The price of this order has changed. Open /buy and start again.
precheckout-busy = We could not check this order in time. Please try again in a moment.
payment-thanks-tokens = ✅ Thank you! { $tokens } bonus tokens were added. Balance: { $balance } tkn.
payment-thanks-plan = ✅ Thank you! Your { $plan } plan is active until { $until }. Balance: { $balance } tkn.
payment-plan-as-bonus = ✅ Thank you! Your { $current } plan runs until { $until }, so this { $plan } payment was credited as { $tokens } bonus tokens (they never expire). Balance: { $balance } tkn.
payment-duplicate = This payment has already been counted.
payment-unmatched = This payment matched no open order, so it is being refunded. If the Stars are not back soon, write to /paysupport with the payment receipt.
paysupport-text =
    💬 Payment help

    Purchases are made with Telegram Stars and credited at once. If a payment was taken but not credited, or you want a refund, write to the administrator from this chat with the date and what you bought (the receipt in your Telegram Stars history helps). A refund takes back the tokens you have not spent yet.

    Subscriptions renew every 30 days; cancel under Balance → Cancel subscription (the plan stays until the paid period ends).
button-cancel-subscription = ✖️ Cancel subscription
subscription-canceled = Your subscription will not renew. The { $plan } plan stays active until { $until }.
subscription-none = You have no active Stars subscription.
subscription-canceled-other = Your { $plan } subscription will not renew. Your current plan is unchanged.
subscription-replaced = ℹ️ You bought the { $new } plan, so your { $old } Stars subscription was canceled: it will not be charged again.
payment-refunded-buyer = ↩️ Your payment of { $amount } ⭐ for { $article } was refunded. { $taken } tokens were taken back ({ $spent } had already been used).
admin-payment-paid = 💰 Paid: { $name } bought { $article } for { $amount } { $currency } (via { $provider }, charge { $charge }).
admin-payment-refunded = ↩️ Refunded: { $name }, { $article }, { $amount } { $currency }: { $taken } tokens taken back, { $spent } already spent.
admin-refund-done = ✅ Refunded order { $order }: { $taken } tokens taken back; { $spent } had already been spent and were not taken.
admin-refund-already = This charge has already been refunded.
admin-refund-pending = ⏳ The refund of order { $order } is pending at the payment provider: the order is refund_pending, nothing is taken back yet. It is followed up automatically; you will be told how it ends.
admin-refund-canceled = ❌ The payment provider canceled the refund of order { $order } ({ $reason }). The order stays paid and nothing was taken back.
admin-refund-canceled-notice = ❌ Refund canceled by { $provider }: order { $order } of user #{ $id } ({ $reason }). The order stays paid; nothing was taken back.
admin-orphan-payment = { $outcome ->
    [refunded] ↩️ A { $provider } payment { $charge } of { $amount } { $currency } paid no open order ({ $reason }, order { $order }): refunded.
    [refund_pending] ↩️ A { $provider } payment { $charge } of { $amount } { $currency } paid no open order ({ $reason }, order { $order }): refund under way at { $provider }.
   *[other] ❗ A { $provider } payment { $charge } of { $amount } { $currency } paid no open order ({ $reason }, order { $order }) and could NOT be refunded ({ $error }): refund it by hand.
}
admin-refund-queued = The refund is recorded but the payment provider did not answer yet ({ $reason }). It is retried automatically.
admin-refund-failed = The refund was refused: { $reason }
admin-refund-unknown = No paid order has the charge id { $charge }.
admin-refund-not-refundable = This order cannot be refunded (it is { $status }).

## Invitations (referrals)

button-invite = 🎁 Invite friends
button-share-link = 📤 Share the link
command-referral = Invite friends: your link and bonuses
referral-title = 🎁 Invite friends
referral-link = Your invitation link:
    { $link }
referral-terms = A friend who joins through it and makes a first payment gets { $invitee } bonus { $invitee ->
        [one] token
       *[other] tokens
    }, and you get { $inviter }.
referral-terms-none = Share it with friends: they start with the same gift as everyone.
referral-stats = Joined through your link: { $invited } · earned: { $earned } { $earned ->
        [one] token
       *[other] tokens
    }
referral-share-text = Try Nebula: chat with AI models, create images, videos and music in Telegram.
referral-joined = 🤝 You joined through { $name }'s invitation.
referral-joined-bonus = 🤝 You joined through { $name }'s invitation: with your first payment you get { $tokens } bonus { $tokens ->
        [one] token
       *[other] tokens
    } extra.
referral-own-link = That is your own invitation link: share it with friends (it counts for new accounts only).
referral-not-new = Invitation links count for new accounts only; yours is already set up.
referral-unknown = This invitation link is not valid; you can use the bot as usual.
referral-rewarded-inviter = 🎁 A friend you invited made their first payment: { $tokens } bonus { $tokens ->
        [one] token was
       *[other] tokens were
    } added to your balance.
referral-rewarded-invitee = 🎁 You joined through an invitation: { $tokens } bonus { $tokens ->
        [one] token was
       *[other] tokens were
    } added with your first payment.

## Promo codes

command-redeem = Redeem a promo code
redeem-usage = Send the code after the command, like this: /redeem SPRING
redeem-private-only = Promo codes are redeemed in the private chat with me, so that nobody else sees them.
redeem-tokens = 🎟 Promo code { $code } redeemed: { $tokens } bonus { $tokens ->
        [one] token was
       *[other] tokens were
    } added. Balance: { $balance }.
redeem-plan = 🎟 Promo code { $code } redeemed: { $plan } until { $date }; balance: { $balance }.
error-promo-not-found = There is no promo code like that: check how it is spelled.
error-promo-expired = This promo code has expired.
error-promo-exhausted = This promo code has been used up.
error-promo-already-redeemed = You have already redeemed this promo code.

## Settings

settings-text =
    ⚙️ Settings

    Language: { $language }
    Image format: { $format }
    Notifications: { $notifications }
    Voice messages: { $voice }
    Voice answers: { $answers }
    One-step commands (/image a red fox): { $confirm ->
        [0] ask before every run
       *[other] start at once up to { $confirm } tkn, ask above
    }

    With notifications off, results that finish later arrive silently.
settings-on = on
settings-off = off
settings-voice-transcribe = transcribed
settings-voice-answer = answered by the chat model
settings-voice-answers-off = off
settings-voice-answers-on = on ({ $model })
settings-voice-answers-no-model = on, but your plan has no speech model
settings-voice-answers-pick = 🗣 The speech model of voice answers (price for up to 4,000 characters):

## Stats and history

stats-text =
    📊 Your statistics

    Completed: { $total } · tokens spent: { $spent }
    Last 30 days: { $recent } · { $recentSpent } tkn

    💬 Text: { $text } · { $textTokens } tkn
    🖼 Images: { $image } · { $imageTokens } tkn
    🎬 Video: { $video } · { $videoTokens } tkn
    🎵 Audio: { $audio } · { $audioTokens } tkn
    🛠 Tools: { $tools } · { $toolsTokens } tkn
history-title = 🗂 Your results (newest first):
history-item = { $icon } #{ $id } { $model } · { $tokens } tkn · { $date }
history-item-about = “{ $text }”
history-empty = 🗂 No results yet.
history-not-ready = This result is not ready.
history-not-found = Result not found.

## Admin

admin-only = This command is for administrators only.
admin-usage =
    Admin commands:
    /admin stats
    /admin grant <user> <tokens> [reason]
    /admin plan <user> <free|basic|pro|vip|elite>
    /admin user <user>
    /admin refund <charge id>
    A user is an id, tg:<telegram id> or @username.
admin-stats =
    📈 Service
    Users: { $users } (+{ $newUsers } in 24 h)
    By plan: { $plans }
    Generations 24 h: { $generations }, failed: { $failed }, pending now: { $pending }
    Tokens spent 24 h: { $spent }
    Top models 24 h: { $top }
admin-user-not-found = No user { $ref }.
admin-granted = ✅ Granted { $tokens } bonus { $tokens ->
        [one] token
       *[other] tokens
    } to #{ $id } { $name }. Balance: { $balance }.
admin-plan-changed = ✅ #{ $id } { $name } is now on the { $plan } plan (new billing period started).
admin-user =
    👤 #{ $id } { $name } ({ $username })
    Telegram: { $telegram } · email: { $email }
    Plan: { $plan } · balance: { $balance }
    Since { $created }
admin-new-user = 🆕 New user #{ $id } { $name } ({ $username })
admin-catalog-changed = Catalog check: { $count } { $count ->
    [one] model changed
   *[other] models changed
 } at its vendor
admin-catalog-model = • { $slug }: { $status ->
    [missing] missing from its vendor's list (it is retired only if a check 24 h later misses it too and the vendor answers not found)
    [suspect] the vendor answered "model not found" to a request (nothing is retired; catalog:check decides)
   *[other] { $status }
 }, shutdown { $shutdown }, replacement { $replacement }
admin-provider-down = 🔴 Provider { $provider } is failing: its models are paused. { $reason }
admin-provider-up = 🟢 Provider { $provider } recovered.
admin-failure-burst = ⚠️ { $count } generations failed in the last { $minutes } min (latest: { $model }, { $kind }).
admin-webhook-failing = 🪝 Webhook #{ $endpoint } of user #{ $id } is failing after { $attempts } attempts: { $url } ({ $error })
admin-webhook-disabled = 🪝 Webhook #{ $endpoint } of user #{ $id } answered 410 Gone and is disabled: { $url } (no further events; { $attempts } attempts, { $error })

## Group chats

group-intro =
    👋 Hi! I'm @{ $bot }. Mention me (@{ $bot }) or reply to my message to ask something; /image, /video, /speech, /music and /tools work here too.
    Each member uses their own account: their plan, limits and tokens pay. Balance, plans, history and settings stay in our private chat.
    Group admins can switch me off with /off and on again with /on.
group-private-note = 🔒 Balance, plans, payments, history and settings are not shown in groups: open our private chat.
group-private-toast = 🔒 That is in our private chat with @{ $bot }, not in the group.
group-no-account = 👋 To use me here, start me in a private chat first (@{ $bot }): your account, plan and tokens live there.
group-button-not-yours = This button belongs to another member's request.
group-error-personal = 💳 This can't run on your account right now (tokens, plan or limits). The details are in our private chat.
group-admins-only = Only the group's admins can switch me off or on.
group-switched-off = 🔕 I'm off in this group. An admin can switch me on again with /on.
group-switched-on = 🔔 I'm on again in this group: mention me (@{ $bot }) or reply to my message.
group-unhandled = I answer text, photos and voice messages here: mention me (@{ $bot }) or reply to my message.
group-empty-mention = Yes? Write your question after the mention, or reply to this message.
group-reply-hint = ↩️ In a group, reply to this message.
button-open-private-chat = 💬 Open the private chat
chat-footer-group = — { $model } · { $tokens } tkn
result-caption-group = { $model } · { $tokens } tkn
media-confirm-price-group = Price: { $price } tkn

## Voice answers

voice-answer-refused = { $reason ->
    [tokens] 🔇 No voice answer this time: it needs { $price } tkn, more than the balance has. The text answer is complete.
    [limit] 🔇 No voice answer this time: the request limit is reached. The text answer is complete.
    [plan] 🔇 Voice answers need the { $plan } plan or higher (speech synthesis). The text answer is complete.
   *[other] 🔇 No voice answer this time: speech is not available right now. The text answer is complete.
}
voice-answer-cut = 🔊 The answer is long: the voice message speaks its first { $chars } characters, up to the end of a sentence.
