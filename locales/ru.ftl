# Тексты Telegram-бота, русский. Каждый ключ должен быть и в en.ftl (это проверяет test/bot/locales.test.ts).

## Старт, меню, помощь

start-welcome-new =
    👋 Добро пожаловать, { $name }!

    Ваш аккаунт готов: тариф { $plan } и разовый подарок — { $balance } { $balance ->
        [one] токен
        [few] токена
       *[many] токенов
    }.
    Общайтесь с текстовыми моделями, создавайте изображения, видео, озвучку и музыку, расшифровывайте голосовые и обрабатывайте фото — прямо в этом чате.

    Выберите, что сделать:
start-welcome-back =
    👋 С возвращением, { $name }!
    Тариф: { $plan } · баланс: { $balance } { $balance ->
        [one] токен
        [few] токена
       *[many] токенов
    }.

    Выберите, что сделать:
menu-title = Что будем делать?
menu-chat = 💬 Чат
menu-image = 🖼 Изображение
menu-video = 🎬 Видео
menu-tts = 🗣 Озвучка
menu-stt = 🎙 Расшифровка
menu-music = 🎵 Музыка
menu-tools = 🛠 Фото-инструменты
menu-balance = 💰 Баланс и тарифы
menu-settings = ⚙️ Настройки
menu-stats = 📊 Статистика
menu-history = 🗂 История
menu-help = ❓ Помощь
menu-button-app = Приложение
help-text =
    ❓ Как это работает

    💬 Просто напишите сообщение — ответит выбранная текстовая модель, она помнит разговор. /new — начать заново, /chat — выбрать модель, /mode — выбрать персону. Кнопка 🔄 под ответом задаёт тот же вопрос ещё раз (он оплачивается снова).
    👁 Пришлите фото с вопросом в подписи (или ответьте на фото вопросом) — ответит модель, которая понимает изображения; ответьте на любое фото, что изменить («сделай небо фиолетовым»), — и оно будет отредактировано.
    🎨 Под каждым изображением: 🔄 Ещё раз, 🎲 Вариации, 🔍 Увеличить, ✏️ Изменить.
    ⚡ /image рыжая лиса, /video волны на закате, /music спокойное пианино, /speak Привет!: в один шаг, с моделью и параметрами, которые вы выбрали в прошлый раз; подтверждается только цена (в /settings можно не спрашивать ниже выбранной цены).
    🖼 /image, 🎬 /video, 🗣 /speech, 🎵 /music без текста: выберите модель и параметры, напишите запрос, посмотрите цену и подтвердите.
    🎙 Пришлите голосовое сообщение или аудиофайл — я его расшифрую; в /settings можно включить, чтобы на голосовые отвечала модель чата.
    🛠 Пришлите фото с подписью: «увеличь», «увеличь 4x», «убери фон», «раскрась», «текст», «стиль: акварель», «перерисуй: красная шляпа», «замени лицо» — или без подписи, чтобы выбрать инструмент.

    Каждый запрос стоит токенов; цена видна до подтверждения, а неудачный запрос ничего не стоит.
    /balance — токены и тарифы, /settings — язык, формат изображений и уведомления, /history — ваши результаты, /cancel — прервать мастер.
cancel-nothing = Отменять нечего.
unhandled-message = Не понял. Выберите что-нибудь в меню:
button-expired = Эта кнопка устарела. Откройте /menu заново.
account-blocked = Этот аккаунт заблокирован. Если это ошибка, напишите в поддержку.

## Команды (меню команд Telegram)

command-start = Старт и главное меню
command-menu = Главное меню
command-chat = Модель чата и контекст
command-new = Начать новый разговор
command-mode = Выбрать персону
command-image = Создать изображение
command-video = Создать видео
command-speech = Озвучить текст
command-speak = Сразу озвучить текст: /speak <текст>
command-transcribe = Модель расшифровки
command-music = Создать музыку
command-tools = Фото-инструменты
command-balance = Баланс и тарифы
command-settings = Настройки
command-stats = Ваша статистика
command-history = Ваши результаты
command-help = Помощь
command-buy = Купить токены или тариф за звёзды
command-paysupport = Помощь с оплатой
command-cancel = Отменить текущий шаг
command-stop = Остановить ответ
command-off = Выключить бота в этой группе (админы)
command-on = Включить бота в этой группе (админы)

## Кнопки

button-menu = ☰ Меню
button-back = ‹ Назад
button-cancel = ✖ Отмена
button-skip = Пропустить ›
button-skip-transparent = Пропустить: перерисовать прозрачную область ›
button-generate = ✅ Создать · { $price } ток.
button-options = ⚙️ Параметры
button-confirm-always = Всегда спрашивать
button-confirm-above = ≤ { $price }: сразу
button-top-up = 💳 Пополнить
button-plans = ⭐ Тарифы
button-new-chat = 🆕 Новый разговор
button-older = Раньше ›
button-newest = ‹ Новые
button-resend = 📎 #{ $id } { $label }
button-retry = 🔄 Спросить ещё раз · ≈{ $price } ток.
button-stop = ⏹ Стоп
button-again = 🔄 Ещё раз
button-variations = 🎲 Вариации
button-upscale = 🔍 Увеличить
button-edit = ✏️ Изменить
button-persona = 🎭 Персона
button-persona-none = 🚫 Без персоны
button-voice-transcribe = 📝 Расшифровывать голосовые
button-voice-answer = 💬 Отвечать на голосовые
button-voice-answers-off = 🔇 Без озвучки ответов
button-voice-answers-on = 🔊 Озвучивать ответы
button-voice-answers-model = 🗣 Голос: { $model }
button-buy-plan = { $name } · { $stars } ⭐ / 30 дней
button-buy-tokens = { $tokens } { $tokens ->
        [one] токен
        [few] токена
       *[many] токенов
    } · { $stars } ⭐
button-notifications-on = 🔔 Включить уведомления
button-notifications-off = 🔕 Выключить уведомления

## Модели

model-button = { $mark }{ $name } · { $price } ток.
model-button-locked = 🔒 { $name } · { $plan }
model-locked = { $model } доступна с тарифа { $plan }. Повысьте тариф в разделе «Баланс и тарифы».
price-tokens = { $price } ток.
seconds = { $n } с

## Чат

chat-intro =
    💬 Чат

    Модель: { $model }
    Персона: { $persona }
    Сообщений в контексте: { $messages }

    Просто напишите сообщение или пришлите фото с вопросом. Ниже можно выбрать другую модель; для 🔒 нужен тариф выше.
chat-model-set = Модель чата: { $model }
chat-reset = 🆕 Начат новый разговор: прежний контекст забыт.
chat-thinking = ✍️ …
chat-empty-reply = (модель вернула пустой ответ)
chat-stopped = ⏹ Остановлено: ответ на этом заканчивается, оплачивается только написанное.
chat-stopped-before = ⏹ Остановлено до начала ответа. Ничего не списано.
stop-done = ⏹ Остановлено.
stop-requested = ⏹ Остановка запрошена.
stop-nothing = Сейчас ничего не пишется.
edit-ask = ✏️ Что изменить? Напишите одним сообщением, например «сделай небо фиолетовым».
follow-up-gone = Этот результат больше недоступен.
follow-up-variation-prompt = Вариация этого изображения
document-joined = 📄 { $name }{ $pages ->
        [0] {""}
       *[other] {" "}({ $pages } стр.)
    } — в разговоре. Теперь каждый вопрос несёт { $count ->
        [one] его
       *[other] документы ({ $count })
    } как входные данные (около { $tokens } токенов), до /new. Спрашивайте.
document-no-text = 📄 В { $name } нет текстового слоя (это скан), а { $model } сам PDF не читает. Выберите в /chat модель, которая читает PDF, и пришлите файл снова. Ничего не списано.
document-conversation-full = 📄 В этом разговоре уже столько текста документов, сколько помещается (до { $max } символов). /new начинает заново без документов. Ничего не списано.
chat-footer = — { $model } · { $tokens } ток. · баланс { $balance }
chat-retry-started = 🔄 Спрашиваю ещё раз: запрос оплачивается снова, около { $price } ток.
chat-retry-expired = Повторить можно только последний ответ.

## Персоны

persona-intro =
    🎭 Персоны

    Сейчас: { $persona }

    Персона задаёт чату инструкции и модель. При выборе персоны начинается новый разговор.
persona-line = 🎭 { $name } — { $description }
persona-line-own = 👤 { $name } — { $description }
persona-own-hint = Создавайте своих ассистентов (инструкции и модель) на странице «Ассистенты» в панели управления: они появятся и здесь.
button-open-assistants = 🧩 Ваши ассистенты
persona-none = нет
persona-set = 🎭 Персона: { $name }, модель: { $model }. Начат новый разговор.
persona-set-model-kept = 🎭 Персона: { $name }. Её модель { $wanted } вам недоступна, поэтому отвечает { $model }. Начат новый разговор.
persona-off = Персона отключена: модель чата отвечает без инструкций. Начат новый разговор.
persona-not-found = Эта персона больше недоступна.

## Мастера медиа

media-pick-image = 🖼 Выберите модель изображений:
media-pick-video = 🎬 Выберите модель видео:
media-pick-tts = 🗣 Выберите модель озвучки:
media-pick-music = 🎵 Выберите модель музыки:
media-ask-size = Выберите размер:
media-ask-quality = Выберите качество:
media-ask-aspect = Выберите соотношение сторон:
media-ask-duration = Выберите длительность:
media-ask-music-duration = Какой длины трек?
media-ask-voice = Выберите голос:
media-ask-photo-required = Пришлите фото, которое нужно оживить.
media-ask-photo-optional = Пришлите фото-основу или пропустите этот шаг.
media-ask-prompt-image = ✏️ Опишите, какое изображение нужно.
media-ask-prompt-video = ✏️ Опишите, какое видео нужно.
media-ask-text-tts = ✏️ Пришлите текст для озвучки.
media-ask-prompt-music = ✏️ Опишите музыку: жанр, настроение, инструменты.
media-confirm-prompt = Запрос: { $prompt }
media-confirm-price = Цена: { $price } ток. (баланс { $balance })
quality-standard = Обычное
quality-hd = HD
voice-default = по умолчанию
detail-size = Размер: { $size }
detail-quality-hd = Качество: HD
detail-aspect = Соотношение сторон: { $size }
detail-duration = Длительность: { $seconds } с
detail-voice = Голос: { $voice }
detail-with-photo = С вашим фото
detail-with-mask = С вашей маской
detail-transparent-area = Перерисовка прозрачной области
detail-scale = Масштаб: { $scale }×
wizard-cancelled = Отменено.
wizard-use-buttons = Пожалуйста, используйте кнопки выше или /cancel.
wizard-stale-button = Эта кнопка относится к прошлому шагу.

## Инструменты

tools-pick = 🛠 Выберите инструмент:
tools-pick-for-photo = 🛠 Что сделать с этим фото?
tools-selected = 🛠 { $tool }
tools-ask-photo = Пришлите фото.
tools-ask-face-source = Пришлите фото с лицом, которое нужно взять.
tools-ask-face-target = Теперь пришлите фото, на которое его поставить.
tools-ask-mask = Пришлите маску (белое — область для перерисовки, те же пропорции, что у изображения) или пропустите, чтобы перерисовать прозрачную область изображения.
tools-ask-mask-required = Пришлите маску: белое — область для перерисовки, чёрное — то, что остаётся (те же пропорции, что у изображения). В этом изображении нет прозрачной области, поэтому маска нужна; или начните заново и пришлите изображение PNG-файлом, где область для перерисовки прозрачная.
tools-ask-scale = Во сколько раз увеличить?
tools-ask-prompt-style = ✏️ Опишите стиль, например «акварель», «карандашный набросок».
tools-ask-prompt-inpaint = ✏️ Опишите, что нарисовать в этой области.
tools-photo-replaced = 🖼 Фото заменено новым.

## Расшифровка речи

stt-intro =
    🎙 Расшифровка

    Пришлите голосовое сообщение, аудиофайл или видеосообщение — я запишу текст.
    Модель: { $model }
stt-model-set = Модель расшифровки: { $model }
voice-transcript =
    🎙 { $text }
    — { $model } · { $tokens } ток.
voice-pending = 🎙 Расшифровка занимает больше времени, чем обычно; она появится в /history.
voice-empty = 🎙 Не удалось разобрать слова в этом сообщении.

## Ход работы и результаты

progress-started = ⏳ { $model } работает… это займёт около { $eta } с.
progress-running = ⏳ { $model }: прошло { $elapsed } с, осталось около { $left } с.
progress-late = ⏳ { $model }: прошло { $elapsed } с — дольше обычного, результат придёт сюда.
result-caption = { $model } · { $tokens } ток. · баланс { $balance }
result-sandbox = ⚠️ Результат песочницы: сервер работает без ключей провайдеров.
result-link = Оригинал: { $url }
result-gone = Файл результата больше не хранится (срок хранения по вашему тарифу истёк).
result-too-large = Результат больше, чем Telegram позволяет отправлять ботам.
result-too-large-link = Результат больше, чем Telegram позволяет отправлять ботам; скачайте его здесь: { $url }
result-empty-text = (текст не распознан)

## Сбои (ничего не списывается)

failure-overloaded = ⚠️ { $model } сейчас перегружена. Ничего не списано — попробуйте через минуту или выберите другую модель.
failure-timeout = ⚠️ { $model } не успела вовремя. Ничего не списано — попробуйте ещё раз.
failure-content-policy = ⚠️ Провайдер отклонил запрос по правилам содержания. Ничего не списано — переформулируйте его.
failure-bad-request = ⚠️ { $model } не смогла обработать этот запрос. Ничего не списано.
failure-upstream = ⚠️ { $model } не выдала результат. Ничего не списано — попробуйте ещё раз.

## Ошибки

error-insufficient-tokens = 💳 Недостаточно токенов: нужно { $required } ток., на балансе { $available }. Пополните баланс или выберите тариф.
error-rate-limit-exceeded = { $window ->
    [day] ⏱ Достигнут лимит тарифа { $plan }: { $limit } запросов в сутки. Он обновится через { $minutes } мин (в { $time }). На тарифах выше лимиты больше.
   *[hour] ⏱ Достигнут лимит тарифа { $plan }: { $limit } запросов в час. Он обновится через { $minutes } мин (в { $time }). На тарифах выше лимиты больше.
}
error-insufficient-plan = 🔒 Для этого нужен тариф { $plan } или выше. Посмотрите тарифы.
error-model-unavailable = ⚠️ { $model } сейчас перегружена. Подождите около { $seconds } с или выберите другую модель. Ничего не списано.
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
    [prompt_too_long] Слишком длинный текст: не больше 4000 символов.
    [prompt_required] Пожалуйста, напишите запрос.
   *[other] Этот параметр не подходит ({ $field }). Попробуйте ещё раз.
}
error-invalid-size = Этот размер недоступен для модели. Выберите другой.
error-model-not-found = Неизвестная модель: { $model }.
error-model-retired = Модель { $model } снята с обслуживания поставщиком. Пожалуйста, выберите другую модель.
error-invalid-input = Не получилось использовать этот файл: пришлите изображение JPEG, PNG или WebP (или аудио в поддерживаемом формате).
error-unsafe-url = { error-invalid-input }
error-fetch-failed = { error-invalid-input }
error-image-rejected = { error-invalid-input }
error-file-too-large = Файл слишком большой: боты могут скачивать файлы до 20 МБ.
error-document-too-large = { $limit ->
    [bytes] 📄 Документ слишком большой: я читаю файлы до { $max } МБ. Ничего не списано.
    [pages] 📄 В документе слишком много страниц: я читаю PDF до { $max } страниц. Ничего не списано.
   *[characters] 📄 В документе слишком много текста: до { $max } символов на один разговор. Ничего не списано.
}
error-document-unreadable = { $reason ->
    [type] 📄 Я читаю PDF, текст, Markdown, код и CSV; такой файл я прочитать не могу. Ничего не списано.
    [encrypted] 📄 Этот PDF защищён паролем: пришлите его без пароля. Ничего не списано.
    [binary] 📄 Это не текст, который я могу прочитать (UTF-8). Ничего не списано.
    [empty] 📄 Документ пустой. Ничего не списано.
   *[damaged] 📄 Документ не открывается: похоже, он повреждён. Ничего не списано.
}
error-file-unavailable = Не удалось скачать файл из Telegram. Пришлите его ещё раз.
error-account-blocked = ⛔️ Этот аккаунт заблокирован. Напишите в поддержку.
error-quota-exceeded = Достигнут предел: не больше { $limit }.
error-not-found = Не найдено: возможно, это уже удалено.
error-admin-required = Это доступно только администраторам сервиса.
error-cannot-block-self = Нельзя заблокировать собственный аккаунт.
error-broadcast-finished = Эта рассылка уже завершена или отменена.
error-key-restricted = У этого API-ключа есть ограничения: он может только генерировать и читать, но не управлять аккаунтом.
error-internal = У нас что-то пошло не так. Ничего не списано; попробуйте ещё раз.

## Баланс, тарифы, оплата

balance-text =
    💰 Баланс: { $total } ток.
      токены тарифа: { $planTokens }
      бонусные токены: { $bonus } (не сгорают)
balance-plan = Тариф: { $plan }
balance-plan-until = Тариф: { $plan }, действует до { $date }
balance-refill = Следующее пополнение: { $date } ({ $tokens } ток. по тарифу)
balance-no-refill = Тариф { $plan } не пополняется ежемесячно: чтобы получить больше токенов, пополните баланс или выберите другой тариф.
balance-limits = Лимиты: { $hourly } запросов в час, { $daily } в сутки
balance-no-limits = Лимитов на запросы нет
plans-title = ⭐ Тарифы
plan-line =
    { $mark }{ $name } — ⭐ { $stars } / 30 дней
      { $tokens } { $tokens ->
          [one] токен
          [few] токена
         *[many] токенов
      } в месяц, { $hourly } запросов в час, { $daily } в сутки, все модели
plan-line-unsold =
    { $mark }{ $name }
      { $tokens } { $tokens ->
          [one] токен
          [few] токена
         *[many] токенов
      } в месяц, { $hourly } запросов в час, { $daily } в сутки, все модели
plan-line-starter =
    { $mark }{ $name } — бесплатно
      разово 50 токенов, { $hourly } запросов в час, { $daily } в сутки, модели Starter
unlimited = без ограничений
topup-title = ⭐ Оплата звёздами Telegram. Пакеты токенов (бонусные токены не сгорают) и тарифы (30 дней, продлеваются каждый месяц, пока вы не отмените):
article-plan = Тариф { $name }, { $days } дней
article-tokens = { $tokens } { $tokens ->
        [one] токен
        [few] токена
       *[many] токенов
    }
payment-unknown-article = Это предложение больше недоступно.
payment-invoice-description-tokens = { $tokens } бонусных токенов Nebula; бонусные токены не сгорают.
payment-invoice-description-plan = Тариф { $name } на 30 дней, продлевается каждые 30 дней, пока вы не отмените.
payment-plan-link = 🧾 { $title }: { $stars } ⭐ каждые 30 дней. Нажмите кнопку, чтобы оформить подписку; отменить можно в любой момент в разделе «Баланс».
button-pay-stars = Оплатить { $stars } ⭐
precheckout-unknown-order = Этот заказ недействителен. Откройте /buy и начните заново.
precheckout-not-pending = Этот заказ уже оплачен или истёк. Откройте /buy, чтобы создать новый.
precheckout-wrong-amount = Цена этого заказа изменилась. Откройте /buy и начните заново.
precheckout-busy = Не удалось вовремя проверить заказ. Попробуйте ещё раз через минуту.
payment-thanks-tokens = ✅ Спасибо! Начислено { $tokens } бонусных токенов. Баланс: { $balance } ток.
payment-thanks-plan = ✅ Спасибо! Тариф { $plan } действует до { $until }. Баланс: { $balance } ток.
payment-plan-as-bonus = ✅ Спасибо! Тариф { $current } действует до { $until }, поэтому оплата тарифа { $plan } зачислена как { $tokens } бонусных токенов (они не сгорают). Баланс: { $balance } ток.
payment-duplicate = Этот платёж уже учтён.
payment-unmatched = Этот платёж не относится ни к одному открытому заказу, поэтому мы его возвращаем. Если звёзды не вернутся в ближайшее время, напишите в /paysupport и приложите чек платежа.
paysupport-text =
    💬 Помощь с оплатой

    Покупки оплачиваются звёздами Telegram и зачисляются сразу. Если оплата прошла, а начисления нет, или вы хотите вернуть деньги, напишите администратору из этого чата: дату и что вы купили (поможет чек из истории звёзд Telegram). При возврате списываются только ещё не потраченные токены.

    Подписка продлевается каждые 30 дней; отменить её можно в разделе «Баланс» → «Отменить подписку» (тариф действует до конца оплаченного периода).
button-cancel-subscription = ✖️ Отменить подписку
subscription-canceled = Подписка не будет продлеваться. Тариф { $plan } действует до { $until }.
subscription-none = У вас нет активной подписки за звёзды.
subscription-canceled-other = Подписка на тариф { $plan } не будет продлеваться. Текущий тариф не меняется.
subscription-replaced = ℹ️ Вы купили тариф { $new }, поэтому подписка за звёзды на тариф { $old } отменена: больше списаний не будет.
payment-refunded-buyer = ↩️ Платёж { $amount } ⭐ за «{ $article }» возвращён. Списано { $taken } токенов ({ $spent } уже были израсходованы).
admin-payment-paid = 💰 Оплата: { $name } купил(а) { $article } за { $amount } { $currency } (через { $provider }, платёж { $charge }).
admin-payment-refunded = ↩️ Возврат: { $name }, { $article }, { $amount } { $currency }: списано { $taken } токенов, { $spent } уже потрачено.
admin-refund-done = ✅ Возврат по заказу { $order }: списано { $taken } токенов; { $spent } уже были потрачены и не списаны.
admin-refund-already = По этому платежу возврат уже сделан.
admin-refund-pending = ⏳ Возврат по заказу { $order } ожидает платёжную систему: заказ в статусе refund_pending, токены пока не списаны. Статус проверяется автоматически; о результате придёт сообщение.
admin-refund-canceled = ❌ Платёжная система отменила возврат по заказу { $order } ({ $reason }). Заказ остаётся оплаченным, ничего не списано.
admin-refund-canceled-notice = ❌ { $provider } отменила возврат: заказ { $order } пользователя #{ $id } ({ $reason }). Заказ остаётся оплаченным, ничего не списано.
admin-orphan-payment = { $outcome ->
    [refunded] ↩️ Платёж { $provider } { $charge } на { $amount } { $currency } не оплатил ни одного открытого заказа ({ $reason }, заказ { $order }): возвращён.
    [refund_pending] ↩️ Платёж { $provider } { $charge } на { $amount } { $currency } не оплатил ни одного открытого заказа ({ $reason }, заказ { $order }): возврат выполняется в { $provider }.
   *[other] ❗ Платёж { $provider } { $charge } на { $amount } { $currency } не оплатил ни одного открытого заказа ({ $reason }, заказ { $order }) и НЕ возвращён ({ $error }): верните его вручную.
}
admin-refund-queued = Возврат записан, но платёжная система пока не ответила ({ $reason }). Повтор будет автоматически.
admin-refund-failed = В возврате отказано: { $reason }
admin-refund-unknown = Нет оплаченного заказа с платежом { $charge }.
admin-refund-not-refundable = Этот заказ нельзя вернуть (его статус: { $status }).

## Приглашения (рефералы)

button-invite = 🎁 Пригласить друзей
button-share-link = 📤 Поделиться ссылкой
command-referral = Пригласить друзей: ссылка и бонусы
referral-title = 🎁 Пригласите друзей
referral-link = Ваша ссылка-приглашение:
    { $link }
referral-terms = Друг, который придёт по ней и сделает первую оплату, получит { $invitee } { $invitee ->
        [one] бонусный токен
        [few] бонусных токена
       *[other] бонусных токенов
    }, а вы — { $inviter }.
referral-terms-none = Поделитесь ею с друзьями: они начнут с того же подарка, что и все.
referral-stats = Пришли по вашей ссылке: { $invited } · заработано: { $earned } { $earned ->
        [one] токен
        [few] токена
       *[other] токенов
    }
referral-share-text = Попробуйте Nebula: чат с моделями ИИ, картинки, видео и музыка прямо в Telegram.
referral-joined = 🤝 Вы пришли по приглашению { $name }.
referral-joined-bonus = 🤝 Вы пришли по приглашению { $name }: с первой оплатой получите ещё { $tokens } { $tokens ->
        [one] бонусный токен
        [few] бонусных токена
       *[other] бонусных токенов
    }.
referral-own-link = Это ваша собственная ссылка-приглашение: поделитесь ею с друзьями (она работает только для новых аккаунтов).
referral-not-new = Ссылки-приглашения работают только для новых аккаунтов; ваш уже настроен.
referral-unknown = Эта ссылка-приглашение недействительна; ботом можно пользоваться как обычно.
referral-rewarded-inviter = 🎁 Приглашённый вами друг сделал первую оплату: на ваш баланс начислено { $tokens } { $tokens ->
        [one] бонусный токен
        [few] бонусных токена
       *[other] бонусных токенов
    }.
referral-rewarded-invitee = 🎁 Вы пришли по приглашению: с первой оплатой начислено { $tokens } { $tokens ->
        [one] бонусный токен
        [few] бонусных токена
       *[other] бонусных токенов
    }.

## Промокоды

command-redeem = Активировать промокод
redeem-usage = Отправьте код после команды, например: /redeem SPRING
redeem-private-only = Промокоды активируются в личном чате со мной, чтобы их не видели другие.
redeem-tokens = 🎟 Промокод { $code } активирован: начислено { $tokens } { $tokens ->
        [one] бонусный токен
        [few] бонусных токена
       *[other] бонусных токенов
    }. Баланс: { $balance }.
redeem-plan = 🎟 Промокод { $code } активирован: { $plan } до { $date }; баланс: { $balance }.
error-promo-not-found = Такого промокода нет: проверьте написание.
error-promo-expired = Срок действия промокода истёк.
error-promo-exhausted = Промокод уже использован максимальное число раз.
error-promo-already-redeemed = Вы уже активировали этот промокод.

## Настройки

settings-text =
    ⚙️ Настройки

    Язык: { $language }
    Формат изображений: { $format }
    Уведомления: { $notifications }
    Голосовые сообщения: { $voice }
    Озвучка ответов: { $answers }
    Команды в один шаг (/image рыжая лиса): { $confirm ->
        [0] спрашивать перед каждым запуском
       *[other] до { $confirm } ток. запускать сразу, дороже — спрашивать
    }

    Когда уведомления выключены, результаты, готовые позже, приходят без звука.
settings-on = включены
settings-off = выключены
settings-voice-transcribe = расшифровываются
settings-voice-answer = на них отвечает модель чата
settings-voice-answers-off = выключена
settings-voice-answers-on = включена ({ $model })
settings-voice-answers-no-model = включена, но в вашем тарифе нет синтеза речи
settings-voice-answers-pick = 🗣 Модель озвучки ответов (цена за текст до 4000 символов):

## Статистика и история

stats-text =
    📊 Ваша статистика

    Выполнено: { $total } · потрачено токенов: { $spent }
    За 30 дней: { $recent } · { $recentSpent } ток.

    💬 Текст: { $text } · { $textTokens } ток.
    🖼 Изображения: { $image } · { $imageTokens } ток.
    🎬 Видео: { $video } · { $videoTokens } ток.
    🎵 Аудио: { $audio } · { $audioTokens } ток.
    🛠 Инструменты: { $tools } · { $toolsTokens } ток.
history-title = 🗂 Ваши результаты (сначала новые):
history-item = { $icon } #{ $id } { $model } · { $tokens } ток. · { $date }
history-item-about = «{ $text }»
history-empty = 🗂 Результатов пока нет.
history-not-ready = Этот результат ещё не готов.
history-not-found = Результат не найден.

## Администрирование

admin-only = Эта команда только для администраторов.
admin-usage =
    Команды администратора:
    /admin stats
    /admin grant <пользователь> <токены> [причина]
    /admin plan <пользователь> <free|basic|pro|vip|elite>
    /admin user <пользователь>
    /admin refund <id платежа>
    Пользователь — это id, tg:<telegram id> или @username.
admin-stats =
    📈 Сервис
    Пользователи: { $users } (+{ $newUsers } за 24 ч)
    По тарифам: { $plans }
    Генераций за 24 ч: { $generations }, с ошибкой: { $failed }, в работе: { $pending }
    Потрачено токенов за 24 ч: { $spent }
    Популярные модели за 24 ч: { $top }
admin-user-not-found = Пользователь { $ref } не найден.
admin-granted = ✅ Начислено { $tokens } { $tokens ->
        [one] бонусный токен
        [few] бонусных токена
       *[many] бонусных токенов
    } пользователю #{ $id } { $name }. Баланс: { $balance }.
admin-plan-changed = ✅ #{ $id } { $name } теперь на тарифе { $plan } (начат новый расчётный период).
admin-user =
    👤 #{ $id } { $name } ({ $username })
    Telegram: { $telegram } · email: { $email }
    Тариф: { $plan } · баланс: { $balance }
    С { $created }
admin-new-user = 🆕 Новый пользователь #{ $id } { $name } ({ $username })
admin-catalog-changed = Проверка каталога: у поставщиков изменилось моделей: { $count }
admin-catalog-model = • { $slug }: { $status ->
    [missing] нет в списке поставщика (модель отключится, только если проверка через сутки тоже её не найдёт и поставщик ответит «не найдена»)
    [suspect] поставщик ответил на запрос «модель не найдена» (ничего не отключено; решит catalog:check)
   *[other] { $status }
 }, отключение { $shutdown }, замена { $replacement }
admin-provider-down = 🔴 Провайдер { $provider } сбоит: его модели приостановлены. { $reason }
admin-provider-up = 🟢 Провайдер { $provider } восстановился.
admin-failure-burst = ⚠️ За последние { $minutes } мин сбоев генерации: { $count } (последний: { $model }, { $kind }).
admin-webhook-failing = 🪝 Вебхук #{ $endpoint } пользователя #{ $id } не принимает события после { $attempts } попыток: { $url } ({ $error })
admin-webhook-disabled = 🪝 Вебхук #{ $endpoint } пользователя #{ $id } ответил 410 Gone и отключён: { $url } (события больше не отправляются; попыток: { $attempts }, { $error })

## Групповые чаты

group-intro =
    👋 Привет! Я @{ $bot }. Упомяните меня (@{ $bot }) или ответьте на моё сообщение, чтобы спросить; здесь работают и /image, /video, /speech, /music и /tools.
    Каждый участник пользуется своим аккаунтом: платят его тариф, лимиты и токены. Баланс, тарифы, история и настройки — в нашем личном чате.
    Администраторы группы могут выключить меня командой /off и включить снова командой /on.
group-private-note = 🔒 Баланс, тарифы, оплата, история и настройки в группах не показываются: откройте наш личный чат.
group-private-toast = 🔒 Это в нашем личном чате с @{ $bot }, не в группе.
group-no-account = 👋 Чтобы пользоваться мной здесь, сначала запустите меня в личном чате (@{ $bot }): там ваш аккаунт, тариф и токены.
group-button-not-yours = Эта кнопка относится к запросу другого участника.
group-error-personal = 💳 Сейчас это не получится выполнить на вашем аккаунте (токены, тариф или лимиты). Подробности — в нашем личном чате.
group-admins-only = Выключать и включать меня могут только администраторы группы.
group-switched-off = 🔕 В этой группе я выключен. Администратор может включить меня снова командой /on.
group-switched-on = 🔔 Я снова включён в этой группе: упомяните меня (@{ $bot }) или ответьте на моё сообщение.
group-unhandled = Здесь я отвечаю на текст, фото и голосовые: упомяните меня (@{ $bot }) или ответьте на моё сообщение.
group-empty-mention = Да? Напишите вопрос после упоминания или ответьте на это сообщение.
group-reply-hint = ↩️ В группе ответьте на это сообщение.
button-open-private-chat = 💬 Открыть личный чат
chat-footer-group = — { $model } · { $tokens } ток.
result-caption-group = { $model } · { $tokens } ток.
media-confirm-price-group = Цена: { $price } ток.

## Озвучка ответов

voice-answer-refused = { $reason ->
    [tokens] 🔇 Без озвучки: она стоит { $price } ток., а на балансе меньше. Текстовый ответ полный.
    [limit] 🔇 Без озвучки: достигнут лимит запросов. Текстовый ответ полный.
    [plan] 🔇 Озвучка ответов доступна с тарифа { $plan } (синтез речи). Текстовый ответ полный.
   *[other] 🔇 Без озвучки: синтез речи сейчас недоступен. Текстовый ответ полный.
}
voice-answer-cut = 🔊 Ответ длинный: в голосовом сообщении первые { $chars } символов, до конца предложения.
