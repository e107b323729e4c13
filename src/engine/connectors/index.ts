// The built-in connectors, by provider name.
import type { Connector } from './types.ts';
import { clock } from './clock.ts';
import { csvParser } from './csv_parser.ts';
import { email } from './email.ts';
import { jsEval } from './js_eval.ts';
import { jsonParser } from './json_parser.ts';
import { logger } from './logger.ts';
import { pyEval } from './py_eval.ts';
import { workatoCustomCode } from './workato_custom_code.ts';
import { lookupTable } from './lookup_table.ts';
import { http, rest } from './rest.ts';
import { workatoVariable } from './workato_variable.ts';
import { workatoWebhooks } from './workato_webhooks.ts';
import { workatoApiPlatform } from './workato_api_platform.ts';
import { workatoRecipeFunction } from './workato_recipe_function.ts';
import { workatoPubSub } from './workato_pub_sub.ts';
import { workatoWorkflowTask } from './workato_workflow_task.ts';
import { workatoTemplate } from './workato_template.ts';
import { workatoSmartList } from './workato_smart_list.ts';
import { workatoDbTable } from './workato_db_table.ts';
import { workatoFiles } from './workato_files.ts';
import { workatoService } from './workato_service.ts';
import { utility } from './utility.ts';
import { fileConnector } from './file_connector.ts';
import { workatoSkill } from './workato_skill.ts';
import { workatoGenie } from './workato_genie.ts';
import { openAiUtility } from './open_ai_utility.ts';

export const CONNECTORS: Readonly<Record<string, Connector>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, Connector>, {
    clock,
    csv_parser: csvParser,
    email,
    js_eval: jsEval,
    json_parser: jsonParser,
    logger,
    lookup_table: lookupTable,
    py_eval: pyEval,
    workato_custom_code: workatoCustomCode,
    rest,
    http,
    workato_variable: workatoVariable,
    workato_webhooks: workatoWebhooks,
    workato_api_platform: workatoApiPlatform,
    workato_recipe_function: workatoRecipeFunction,
    workato_pub_sub: workatoPubSub,
    workato_workflow_task: workatoWorkflowTask,
    workato_template: workatoTemplate,
    workato_smart_list: workatoSmartList,
    workato_db_table: workatoDbTable,
    workato_files: workatoFiles,
    workato_service: workatoService,
    utility,
    file_connector: fileConnector,
    workato_skill: workatoSkill,
    workato_genie: workatoGenie,
    open_ai_utility: openAiUtility,
  }),
);
