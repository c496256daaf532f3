import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedules store a typed, versioned command instead of the raw POST /generate body they were created with, so the
 * core never parses an HTTP body. Each stored body becomes version 1: `{version: 1, request: {model, prompt, …}}`,
 * with the body's option names as the core names them and its image URLs under their fields. The body was stored
 * as sent (before the API trimmed and lower-cased it), so the conversion applies the same clean-up; nulls meant
 * "not given" and are left out.
 */
export class ScheduledCommands1764240000000 implements MigrationInterface {
  name = 'ScheduledCommands1764240000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE schedules ADD COLUMN command jsonb`);
    await q.query(`
      CREATE OR REPLACE FUNCTION pg_temp.clean(value jsonb, lower_case boolean) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN jsonb_typeof(value) = 'string'
          THEN to_jsonb(CASE WHEN lower_case THEN lower(btrim(value #>> '{}', E' \\t\\r\\n')) ELSE btrim(value #>> '{}', E' \\t\\r\\n') END)
          ELSE value END
      $$`);
    await q.query(`
      CREATE OR REPLACE FUNCTION pg_temp.image(value jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN jsonb_typeof(value) = 'string' THEN jsonb_build_object('url', pg_temp.clean(value, false)) END
      $$`);
    await q.query(`
      UPDATE schedules SET command = jsonb_build_object('version', 1, 'request', jsonb_strip_nulls(jsonb_build_object(
        'model', pg_temp.clean(request -> 'model', false),
        'prompt', request -> 'prompt',
        'negativePrompt', request -> 'negative_prompt',
        'size', pg_temp.clean(request -> 'size', true),
        'format', request -> 'format',
        'quality', request -> 'quality',
        'style', request -> 'style',
        'seed', request -> 'seed',
        'duration', request -> 'duration',
        'voiceId', pg_temp.clean(request #> '{params,voice_id}', false),
        'speed', request #> '{params,speed}',
        'audioFormat', pg_temp.clean(request #> '{params,format}', true),
        'scale', request #> '{params,scale}',
        'images', jsonb_strip_nulls(jsonb_build_object(
          'image_url', pg_temp.image(request -> 'image_url'),
          'params.image_url', pg_temp.image(request #> '{params,image_url}'),
          'params.mask_url', pg_temp.image(request #> '{params,mask_url}'),
          'params.source_image_url', pg_temp.image(request #> '{params,source_image_url}'),
          'params.target_image_url', pg_temp.image(request #> '{params,target_image_url}')
        ))
      )))`);
    await q.query(`ALTER TABLE schedules ALTER COLUMN command SET NOT NULL, DROP COLUMN request`);
    await q.query(`DROP FUNCTION pg_temp.image(jsonb), pg_temp.clean(jsonb, boolean)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE schedules ADD COLUMN request jsonb`);
    await q.query(`
      UPDATE schedules SET request = jsonb_strip_nulls(jsonb_build_object(
        'model', command #> '{request,model}',
        'prompt', command #> '{request,prompt}',
        'negative_prompt', command #> '{request,negativePrompt}',
        'size', command #> '{request,size}',
        'format', command #> '{request,format}',
        'quality', command #> '{request,quality}',
        'style', command #> '{request,style}',
        'seed', command #> '{request,seed}',
        'duration', command #> '{request,duration}',
        'image_url', command #> '{request,images,image_url,url}',
        'params', NULLIF(jsonb_strip_nulls(jsonb_build_object(
          'voice_id', command #> '{request,voiceId}',
          'speed', command #> '{request,speed}',
          'format', command #> '{request,audioFormat}',
          'scale', command #> '{request,scale}',
          'image_url', command #> '{request,images,params.image_url,url}',
          'mask_url', command #> '{request,images,params.mask_url,url}',
          'source_image_url', command #> '{request,images,params.source_image_url,url}',
          'target_image_url', command #> '{request,images,params.target_image_url,url}'
        )), '{}'::jsonb)
      ))`);
    await q.query(`ALTER TABLE schedules ALTER COLUMN request SET NOT NULL, DROP COLUMN command`);
  }
}
