import { hasTransparency } from '../../core/media/image';
import type { BotDeps } from '../context';
import type { ImageRef } from '../conversations/wizard';
import { downloadTelegramFile } from '../transport/telegram-files';

/**
 * Whether an image the user sent has a transparent area (what inpainting repaints without a mask). Photos never
 * do: Telegram turns them into JPEG; only an image sent as a file (PNG, WebP, GIF) can. An image that cannot be
 * downloaded or read counts as opaque: the wizard then asks for a mask, and the run reports the file's problem.
 */
export async function telegramImageHasTransparency(deps: BotDeps, image: ImageRef): Promise<boolean> {
  if (image.mime === 'image/jpeg') return false;
  try {
    const file = await downloadTelegramFile(
      { api: deps.api, token: deps.token, apiRoot: deps.apiRoot, maxBytes: deps.settings.maxDownloadBytes },
      image.fileId,
      image.fileSize,
    );
    return await hasTransparency(file.data);
  } catch (err) {
    deps.services.log.debug({ err }, 'image transparency not readable; asking for a mask');
    return false;
  }
}
